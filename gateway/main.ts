import { loadConfigOrExit } from "../services/shared/config/load-or-exit.js";
import { logProcessWarnings } from "../services/shared/logging/process-warnings.js";
import { onShutdownRequest } from "../services/shared/runtime/supervision.js";
import { loadGatewayConfig } from "./config.js";
import { startGateway } from "./server.js";

const config = loadConfigOrExit("gateway", () => loadGatewayConfig(process.env));
const gateway = await startGateway(config);
logProcessWarnings(gateway.logger);

onShutdownRequest(
  config.supervised,
  async (reason) => {
    try {
      gateway.logger.info({ reason }, "stop requested");
    } catch {
      // stdout may be a pipe nobody reads any more: stopping matters more than saying so.
    }
    await gateway.stop();
  },
  {
    hardDeadlineMs: config.shutdownTimeoutMs + 5000,
    silence: () => {
      gateway.logger.level = "silent";
    },
  },
);
