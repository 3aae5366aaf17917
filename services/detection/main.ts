import "../shared/telemetry/mongodb-preload.js";
import { runServiceProcess } from "../shared/runtime/service-runner.js";
import { loadDetectionConfig } from "./config.js";
import { detectionService } from "./service.js";

const config = loadDetectionConfig(process.env);
await runServiceProcess(detectionService, config, config.supervised);
