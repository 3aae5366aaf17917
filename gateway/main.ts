import { loadConfigOrExit } from "@movement-detection/shared/config";
import { logProcessWarnings } from "@movement-detection/shared/logging";
import { onShutdownRequest } from "@movement-detection/shared/process";
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
