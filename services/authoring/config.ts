import { type Env, envInt, envString } from "../shared/config/env.js";
import { readServiceConfig, type ServiceConfig } from "../shared/config/service-config.js";

export interface AuthoringConfig extends ServiceConfig {
  /** Where the catalogue service listens (MoveSpec changes are pushed there). */
  readonly catalogueServiceUrl: string;
  /** Where the auth service listens (a project's archived state). */
  readonly authServiceUrl: string;
  /** How often pending catalogue changes are pushed again (they are also pushed at once). */
  readonly catalogueSyncIntervalMs: number;
  /** Deadline of each call to another service. */
  readonly rpcTimeoutMs: number;
}

/** The only place the authoring service reads its environment (see the README's configuration table). */
export function loadAuthoringConfig(env: Env): AuthoringConfig {
  return Object.freeze({
    ...readServiceConfig(env, { name: "authoring", grpcPort: 50053, adminPort: 9103 }),
    catalogueServiceUrl: envString(env, "CATALOGUE_SERVICE_URL", "http://127.0.0.1:50052"),
    authServiceUrl: envString(env, "AUTH_SERVICE_URL", "http://127.0.0.1:50051"),
    catalogueSyncIntervalMs: envInt(env, "CATALOGUE_SYNC_INTERVAL_MS", 1000, {
      min: 50,
      max: 600_000,
    }),
    rpcTimeoutMs: envInt(env, "RPC_TIMEOUT_MS", 10_000, { min: 100, max: 600_000 }),
  });
}
