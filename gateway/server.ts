import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { createLogger, type Logger } from "@movement-detection/shared/logging";
import { createAdminServer, listen } from "@movement-detection/shared/process";
import { loadInternalIdentity, PLAINTEXT_WARNING } from "@movement-detection/shared/security";
import { startTracing } from "@movement-detection/shared/telemetry";
import { createAuthServiceVerifier } from "@movement-detection/shared/tokens";
import { createGatewayApp } from "./app.js";
import { createServiceClients } from "./clients.js";
import type { GatewayConfig } from "./config.js";
import { createGatewayMetrics } from "./metrics.js";
import { clientErrorHandler } from "./middleware/client-error.js";
import { watchDependencies } from "./readiness.js";
import { createUpgradeHandler } from "./realtime/upgrade.js";
import { rpcClientMetricsInterceptor } from "./rpc-client-metrics.js";

export interface RunningGateway {
  readonly port: number;
  readonly adminPort: number;
  readonly url: string;
  readonly logger: Logger;
  stop(): Promise<void>;
}

/** How often the gateway asks each service's grpc.health.v1 whether it serves (readiness). */
const DEPENDENCY_CHECK_INTERVAL_MS = 1000;
const DEPENDENCY_CHECK_TIMEOUT_MS = 1000;

/** Starts the gateway: the public HTTP listener (and its websocket upgrades) plus the admin port. */
export async function startGateway(config: GatewayConfig): Promise<RunningGateway> {
  const logger = createLogger({ service: "gateway", level: config.logLevel });
  const tracing = await startTracing(config.telemetry, {
    environment: config.environment,
    logger,
  });
  const metrics = createGatewayMetrics();
  const identity = loadInternalIdentity(config.security, (error) =>
    logger.warn({ err: error.message }, "internal TLS files not reloaded"),
  );
  if (config.security.transport === "h2c") logger.warn(PLAINTEXT_WARNING);
  // Client spans come with every internal transport (when tracing is on); the gateway adds its
  // per-method RPC metrics.
  const clients = createServiceClients(config, identity, [
    rpcClientMetricsInterceptor(metrics.rpc),
  ]);
  const dependencies = watchDependencies(clients.health, {
    intervalMs: DEPENDENCY_CHECK_INTERVAL_MS,
    timeoutMs: DEPENDENCY_CHECK_TIMEOUT_MS,
    logger,
  });
  const tokenVerifier = createAuthServiceVerifier(clients.auth, config.tokens);
  void tokenVerifier.warmUp();
  const deps = { config, clients, logger, tokenVerifier, identity };
  const app = createGatewayApp(deps, metrics.http);

  let accepting = true;
  const server: Server = createServer(app.callback());
  server.keepAliveTimeout = 5000;
  const sockets = new Set<Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("clientError", clientErrorHandler(logger));
  const upgrades = createUpgradeHandler(deps, metrics.streams);
  server.on("upgrade", upgrades);
  const port = await listen(server, config.port, config.host);
  // Ready: accepting, and every service it needs answers (a detailed report: /readyz?verbose).
  const admin = createAdminServer(
    metrics.registry,
    () => accepting && dependencies.report().ready,
    () => ({ accepting, ...dependencies.report() }),
  );
  const adminPort = await admin.listen(config.adminPort, config.host);
  const url = `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${port}`;
  logger.info({ port, admin_port: adminPort, url }, "serving");

  let stopping: Promise<void> | undefined;
  return {
    port,
    adminPort,
    url,
    logger,
    stop() {
      stopping ??= (async () => {
        accepting = false;
        logger.info({ open_sockets: sockets.size }, "shutting down");
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // Streams would otherwise run until the deadline cuts them (1006): 1001 says reconnect.
        upgrades.drain();
        const deadline = setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, config.shutdownTimeoutMs);
        deadline.unref();
        await closed;
        clearTimeout(deadline);
        upgrades.close();
        await admin.close();
        dependencies.stop();
        identity.tls?.close();
        await tracing.shutdown();
        logger.info("stopped");
      })();
      return stopping;
    },
  };
}
