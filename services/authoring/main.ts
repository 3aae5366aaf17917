import "../shared/telemetry/mongodb-preload.js";
import { loadConfigOrExit } from "../shared/config/load-or-exit.js";
import { runServiceProcess } from "../shared/runtime/service-runner.js";
import { loadAuthoringConfig } from "./config.js";
import { authoringService } from "./service.js";

const config = loadConfigOrExit("authoring", () => loadAuthoringConfig(process.env));
await runServiceProcess(authoringService, config, config.supervised);
