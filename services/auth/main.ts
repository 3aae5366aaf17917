import "@movement-detection/shared/telemetry/mongodb-preload";
import { loadConfigOrExit } from "@movement-detection/shared/config";
import { runServiceProcess } from "@movement-detection/shared/runtime";
import { loadAuthConfig } from "./config.js";
import { authService } from "./service.js";

const config = loadConfigOrExit("auth", () => loadAuthConfig(process.env));
await runServiceProcess(authService, config, config.supervised);
