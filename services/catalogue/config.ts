import type { Env } from "../shared/config/env.js";
import { readServiceConfig, type ServiceConfig } from "../shared/config/service-config.js";

export type CatalogueConfig = ServiceConfig;

/** The only place the catalogue service reads its environment (see the README's configuration table). */
export function loadCatalogueConfig(env: Env): CatalogueConfig {
  return readServiceConfig(env, { name: "catalogue", grpcPort: 50052, adminPort: 9102 });
}
