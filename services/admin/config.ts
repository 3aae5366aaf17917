import { type Env, envInt } from "../shared/config/env.js";
import {
  type InternalSecurity,
  internalServiceUrl,
  readInternalSecurity,
} from "../shared/security/internal-security-config.js";

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
