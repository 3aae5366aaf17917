import {
  type Env,
  envInt,
  readServiceConfig,
  type ServiceConfig,
} from "@movement-detection/shared/config";
import { internalServiceUrl } from "@movement-detection/shared/security";
import { readTokenSettings, type TokenSettings } from "@movement-detection/shared/tokens";

export interface AuthoringConfig extends ServiceConfig {
  /** Where the catalogue service listens (MoveSpec changes are pushed there). */
  readonly catalogueServiceUrl: string;
  /** Where the auth service listens (a project's archived state). */
  readonly authServiceUrl: string;
  /** How often pending catalogue changes are pushed again (they are also pushed at once). */
  readonly catalogueSyncIntervalMs: number;
  /** Deadline of each call to another service. */
  readonly rpcTimeoutMs: number;
  /** Issuer and clock tolerance of the users' access tokens (verified here too). */
  readonly tokens: TokenSettings;
}

/** The only place the authoring service reads its environment (see the README's configuration table). */
export function loadAuthoringConfig(env: Env): AuthoringConfig {
  const base = readServiceConfig(env, { name: "authoring", grpcPort: 50053, adminPort: 9103 });
  return Object.freeze({
    ...base,
    catalogueServiceUrl: internalServiceUrl(env, "CATALOGUE_SERVICE_URL", 50052, base.security),
    authServiceUrl: internalServiceUrl(env, "AUTH_SERVICE_URL", 50051, base.security),
    catalogueSyncIntervalMs: envInt(env, "CATALOGUE_SYNC_INTERVAL_MS", 1000, {
      min: 50,
      max: 600_000,
    }),
    rpcTimeoutMs: envInt(env, "RPC_TIMEOUT_MS", 10_000, { min: 100, max: 600_000 }),
    tokens: readTokenSettings(env),
  });
}
