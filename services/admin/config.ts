import { type Env, envInt } from "@movement-detection/shared/config";
import {
  DEFAULT_TRUST_DOMAIN,
  type InternalSecurity,
  internalServiceUrl,
  readInternalSecurity,
} from "@movement-detection/shared/security";

/**
 * Where the admin tool finds the services (the same variables the services themselves use), and
 * the operator credential it proves itself with: the `operator` workload certificate, by default
 * the one `npm start` issued in .data/pki/operator (INTERNAL_TLS_DIR to use another).
 */
export interface AdminConfig {
  readonly authServiceUrl: string;
  readonly catalogueServiceUrl: string;
  readonly authoringServiceUrl: string;
  readonly timeoutMs: number;
  readonly security: InternalSecurity;
}

/** Every variable the tool reads, with its default: `--help` prints this list. */
export const ADMIN_ENVIRONMENT = [
  {
    name: "AUTH_SERVICE_URL",
    default: "https://127.0.0.1:50051",
    meaning: "the auth service (auth commands; movespecs star, unstar check the organization)",
  },
  {
    name: "AUTHORING_SERVICE_URL",
    default: "https://127.0.0.1:50053",
    meaning: "the authoring service (movespecs commands)",
  },
  {
    name: "CATALOGUE_SERVICE_URL",
    default: "https://127.0.0.1:50052",
    meaning: "the catalogue service (movespecs star, unstar)",
  },
  { name: "ADMIN_TIMEOUT_MS", default: "10000", meaning: "deadline of each call, 100 to 600000" },
  {
    name: "INTERNAL_TRANSPORT",
    default: "mtls",
    meaning: "mtls, or h2c on a network trusted as a whole (then http:// URLs)",
  },
  {
    name: "INTERNAL_TLS_DIR",
    default: ".data/pki/operator",
    meaning: "the operator certificate (tls.crt, tls.key, ca.crt); required in production",
  },
  {
    name: "TRUST_DOMAIN",
    default: DEFAULT_TRUST_DOMAIN,
    meaning: "the SPIFFE trust domain of the workloads",
  },
  {
    name: "INTERNAL_TLS_RELOAD_SECONDS",
    default: "60",
    meaning: "how often the certificate files are read again",
  },
  { name: "ENVIRONMENT", default: "development", meaning: "production requires INTERNAL_TLS_DIR" },
] as const;

/** The only place the admin tool reads its environment. */
export function loadAdminConfig(env: Env): AdminConfig {
  const security = readInternalSecurity(env, "operator");
  return Object.freeze({
    authServiceUrl: internalServiceUrl(env, "AUTH_SERVICE_URL", 50051, security),
    catalogueServiceUrl: internalServiceUrl(env, "CATALOGUE_SERVICE_URL", 50052, security),
    authoringServiceUrl: internalServiceUrl(env, "AUTHORING_SERVICE_URL", 50053, security),
    timeoutMs: envInt(env, "ADMIN_TIMEOUT_MS", 10_000, { min: 100, max: 600_000 }),
    security,
  });
}
