import "../shared/telemetry/mongodb-preload.js";
import { runServiceProcess } from "../shared/runtime/service-runner.js";
import { loadAuthConfig } from "./config.js";
import { authService } from "./service.js";

const config = loadAuthConfig(process.env);
await runServiceProcess(authService, config, config.supervised);
