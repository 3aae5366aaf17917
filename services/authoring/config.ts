import type { Env } from "../shared/config/env.js";
import { readServiceConfig, type ServiceConfig } from "../shared/config/service-config.js";

export type AuthoringConfig = ServiceConfig;

/** The only place the authoring service reads its environment (see the README's configuration table). */
export function loadAuthoringConfig(env: Env): AuthoringConfig {
  return readServiceConfig(env, { name: "authoring", grpcPort: 50053, adminPort: 9103 });
}
