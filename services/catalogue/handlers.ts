import type { ServiceImpl } from "@connectrpc/connect";
import type { CatalogueService } from "@movement-detection/proto/catalogue/v1";
import type { CatalogueOperations } from "./operations/catalogue-operations.js";

/** catalogue.v1.CatalogueService: thin wrappers from messages to the operations. */
export function createCatalogueHandlers(
  operations: CatalogueOperations,
): ServiceImpl<typeof CatalogueService> {
  return {
    listMoveSpecs: (request) => operations.list(request),
    getStarCounts: async (request) => ({
      starCounts: await operations.starCounts(request.movespecIds),
    }),
    starMoveSpec: (request) => operations.star(request, true),
    unstarMoveSpec: (request) => operations.star(request, false),
    syncEntries: async (request) => ({ storedRevisions: await operations.sync(request) }),
  };
}
