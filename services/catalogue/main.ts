import "@movement-detection/shared/telemetry/mongodb-preload";
import { loadConfigOrExit } from "@movement-detection/shared/config";
import { runServiceProcess } from "@movement-detection/shared/runtime";
import { loadCatalogueConfig } from "./config.js";
import { catalogueService } from "./service.js";

const config = loadConfigOrExit("catalogue", () => loadCatalogueConfig(process.env));
await runServiceProcess(catalogueService, config, config.supervised);
