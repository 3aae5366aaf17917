import "../shared/telemetry/mongodb-preload.js";
import { loadConfigOrExit } from "../shared/config/load-or-exit.js";
import { runServiceProcess } from "../shared/runtime/service-runner.js";
import { loadAuthConfig } from "./config.js";
import { authService } from "./service.js";

const config = loadConfigOrExit("auth", () => loadAuthConfig(process.env));
await runServiceProcess(authService, config, config.supervised);
