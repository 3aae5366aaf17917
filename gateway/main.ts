import { onShutdownRequest } from "../services/shared/runtime/supervision.js";
import { loadGatewayConfig } from "./config.js";
import { startGateway } from "./server.js";

const config = loadGatewayConfig(process.env);
const gateway = await startGateway(config);

onShutdownRequest(config.supervised, (reason) => {
  gateway.logger.info({ reason }, "stop requested");
  gateway.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
