import type { ServiceImpl } from "@connectrpc/connect";
import type { CatalogueService } from "../../proto/gen/catalogue/v1/catalogue_pb.js";

export function createCatalogueHandlers(): ServiceImpl<typeof CatalogueService> {
  return {};
}
