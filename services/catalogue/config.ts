import {
  type Env,
  envInt,
  readServiceConfig,
  type ServiceConfig,
} from "@movement-detection/shared/config";

export interface CatalogueConfig extends ServiceConfig {
  /** How long a listing page may be served from memory (0: no cache). Writes empty it at once. */
  readonly listCacheMs: number;
  /** Most listing pages (and totals) kept in memory. */
  readonly listCacheEntries: number;
  /** How long a listing's total may be served from memory (0: off); only writes that change it drop it. */
  readonly totalsCacheMs: number;
}

/** The only place the catalogue service reads its environment (see the README's configuration table). */
export function loadCatalogueConfig(env: Env): CatalogueConfig {
  return Object.freeze({
    ...readServiceConfig(env, { name: "catalogue", grpcPort: 50052, adminPort: 9102 }),
    listCacheMs: envInt(env, "CATALOGUE_LIST_CACHE_MS", 2000, { min: 0, max: 3_600_000 }),
    listCacheEntries: envInt(env, "CATALOGUE_LIST_CACHE_ENTRIES", 5000, { min: 1, max: 1_000_000 }),
    totalsCacheMs: envInt(env, "CATALOGUE_TOTALS_CACHE_MS", 60_000, { min: 0, max: 3_600_000 }),
  });
}
