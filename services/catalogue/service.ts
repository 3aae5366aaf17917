import { CatalogueService } from "../../proto/gen/catalogue/v1/catalogue_pb.js";
import type { ServiceDefinition } from "../shared/runtime/service-runner.js";
import type { CatalogueConfig } from "./config.js";
import { createCatalogueHandlers } from "./handlers.js";

export const catalogueService: ServiceDefinition<CatalogueConfig> = {
  name: "catalogue",
  services: [CatalogueService],
  async start() {
    const handlers = createCatalogueHandlers();
    return { register: (router) => router.service(CatalogueService, handlers) };
  },
};
