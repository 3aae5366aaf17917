import "../shared/telemetry/mongodb-preload.js";
import { runServiceProcess } from "../shared/runtime/service-runner.js";
import { loadAuthoringConfig } from "./config.js";
import { authoringService } from "./service.js";

const config = loadAuthoringConfig(process.env);
await runServiceProcess(authoringService, config, config.supervised);
