import {
  CatalogueService,
  type ListMoveSpecsResponse,
} from "@movement-detection/proto/catalogue/v1";
import type { ServiceDefinition } from "@movement-detection/shared/runtime";
import type { CatalogueConfig } from "./config.js";
import { createCatalogueHandlers } from "./handlers.js";
import { createCatalogueOperations } from "./operations/catalogue-operations.js";
import { createListingCache } from "./operations/listing-cache.js";
import { createTotalsCache } from "./operations/totals-cache.js";
import { createEntryStore } from "./store/entry-store.js";
import { createStarStore } from "./store/star-store.js";

export const catalogueService: ServiceDefinition<CatalogueConfig> = {
  name: "catalogue",
  services: [CatalogueService],
  async start({ config, db, logger }) {
    const entries = createEntryStore(db);
    const stars = createStarStore(db);
    await entries.ensureIndexes();
    await stars.ensureIndexes();
    const operations = createCatalogueOperations({
      entries,
      stars,
      cache: createListingCache<ListMoveSpecsResponse>({
        maxAgeMs: config.listCacheMs,
        maxEntries: config.listCacheEntries,
      }),
      totals: createTotalsCache({
        maxAgeMs: config.totalsCacheMs,
        maxEntries: config.listCacheEntries,
      }),
      logger,
      now: () => new Date(),
    });
    const handlers = createCatalogueHandlers(operations);
    return { register: (router) => router.service(CatalogueService, handlers) };
  },
};
