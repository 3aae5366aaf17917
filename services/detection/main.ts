import "../shared/telemetry/mongodb-preload.js";
import { loadConfigOrExit } from "../shared/config/load-or-exit.js";
import { runServiceProcess } from "../shared/runtime/service-runner.js";
import { loadDetectionConfig } from "./config.js";
import { detectionService } from "./service.js";

const config = loadConfigOrExit("detection", () => loadDetectionConfig(process.env));
await runServiceProcess(detectionService, config, config.supervised);
