import { type Env, envInt, envString } from "../shared/config/env.js";

/** Where the admin tool finds the services (the same variables the services themselves use). */
export interface AdminConfig {
  readonly authServiceUrl: string;
  readonly catalogueServiceUrl: string;
  readonly authoringServiceUrl: string;
  readonly timeoutMs: number;
}

/** Every variable the tool reads, with its default: `--help` prints this list. */
export const ADMIN_ENVIRONMENT = [
  {
    name: "AUTH_SERVICE_URL",
    default: "http://127.0.0.1:50051",
    meaning: "the auth service (auth commands)",
  },
  {
    name: "AUTHORING_SERVICE_URL",
    default: "http://127.0.0.1:50053",
    meaning: "the authoring service (movespecs commands)",
  },
  {
    name: "CATALOGUE_SERVICE_URL",
    default: "http://127.0.0.1:50052",
    meaning: "the catalogue service (movespecs star, unstar)",
  },
  { name: "ADMIN_TIMEOUT_MS", default: "10000", meaning: "deadline of each call, 100 to 600000" },
] as const;

const DEFAULTS = Object.fromEntries(ADMIN_ENVIRONMENT.map((v) => [v.name, v.default]));

/** The only place the admin tool reads its environment. */
export function loadAdminConfig(env: Env): AdminConfig {
  return Object.freeze({
    authServiceUrl: envString(env, "AUTH_SERVICE_URL", DEFAULTS.AUTH_SERVICE_URL),
    catalogueServiceUrl: envString(env, "CATALOGUE_SERVICE_URL", DEFAULTS.CATALOGUE_SERVICE_URL),
    authoringServiceUrl: envString(env, "AUTHORING_SERVICE_URL", DEFAULTS.AUTHORING_SERVICE_URL),
    timeoutMs: envInt(env, "ADMIN_TIMEOUT_MS", Number(DEFAULTS.ADMIN_TIMEOUT_MS), {
      min: 100,
      max: 600_000,
    }),
  });
}
