import "../shared/telemetry/mongodb-preload.js";
import { loadConfigOrExit } from "../shared/config/load-or-exit.js";
import { runServiceProcess } from "../shared/runtime/service-runner.js";
import { loadCatalogueConfig } from "./config.js";
import { catalogueService } from "./service.js";

const config = loadConfigOrExit("catalogue", () => loadCatalogueConfig(process.env));
await runServiceProcess(catalogueService, config, config.supervised);
