import "@movement-detection/shared/telemetry/mongodb-preload";
import { loadConfigOrExit } from "@movement-detection/shared/config";
import { runServiceProcess } from "@movement-detection/shared/runtime";
import { loadAuthoringConfig } from "./config.js";
import { authoringService } from "./service.js";

const config = loadConfigOrExit("authoring", () => loadAuthoringConfig(process.env));
await runServiceProcess(authoringService, config, config.supervised);
