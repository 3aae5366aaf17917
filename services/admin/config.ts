import { type Env, envInt, envString } from "../shared/config/env.js";

/** Where the admin tool finds the services (the same variables the services themselves use). */
export interface AdminConfig {
  readonly authServiceUrl: string;
  readonly catalogueServiceUrl: string;
  readonly authoringServiceUrl: string;
  readonly timeoutMs: number;
}

/** The only place the admin tool reads its environment. */
export function loadAdminConfig(env: Env): AdminConfig {
  return Object.freeze({
    authServiceUrl: envString(env, "AUTH_SERVICE_URL", "http://127.0.0.1:50051"),
    catalogueServiceUrl: envString(env, "CATALOGUE_SERVICE_URL", "http://127.0.0.1:50052"),
    authoringServiceUrl: envString(env, "AUTHORING_SERVICE_URL", "http://127.0.0.1:50053"),
    timeoutMs: envInt(env, "ADMIN_TIMEOUT_MS", 10_000, { min: 100, max: 600_000 }),
  });
}
