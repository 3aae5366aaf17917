import type { Env } from "../shared/config/env.js";
import { readServiceConfig, type ServiceConfig } from "../shared/config/service-config.js";

export type AuthConfig = ServiceConfig;

/** The only place the auth service reads its environment (see the README's configuration table). */
export function loadAuthConfig(env: Env): AuthConfig {
  return readServiceConfig(env, { name: "auth", grpcPort: 50051, adminPort: 9101 });
}
