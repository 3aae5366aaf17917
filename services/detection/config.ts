import type { Env } from "../shared/config/env.js";
import { readServiceConfig, type ServiceConfig } from "../shared/config/service-config.js";

export type DetectionConfig = ServiceConfig;

/** The only place the detection service reads its environment (see the README's configuration table). */
export function loadDetectionConfig(env: Env): DetectionConfig {
  return readServiceConfig(env, { name: "detection", grpcPort: 50054, adminPort: 9104 });
}
