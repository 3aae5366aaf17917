import "@movement-detection/shared/telemetry/mongodb-preload";
import { loadConfigOrExit } from "@movement-detection/shared/config";
import { runServiceProcess } from "@movement-detection/shared/runtime";
import { loadDetectionConfig } from "./config.js";
import { detectionService } from "./service.js";

const config = loadConfigOrExit("detection", () => loadDetectionConfig(process.env));
await runServiceProcess(detectionService, config, config.supervised);
