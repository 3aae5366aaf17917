import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";
import { createLogger, type Logger } from "../services/shared/logging/logger.js";
import { createAdminServer } from "../services/shared/runtime/admin-server.js";
import { listen } from "../services/shared/runtime/listen.js";
import { PLAINTEXT_WARNING } from "../services/shared/security/internal-security-config.js";
import { loadInternalIdentity } from "../services/shared/security/internal-transport.js";
import { createGatewayApp } from "./app.js";
import { createGatewayTokenVerifier } from "./auth/token-verifier.js";
import { createServiceClients } from "./clients.js";
import type { GatewayConfig } from "./config.js";
import { clientErrorHandler } from "./middleware/client-error.js";
import { createUpgradeHandler } from "./realtime/upgrade.js";

export interface RunningGateway {
  readonly port: number;
  readonly adminPort: number;
  readonly url: string;
  readonly logger: Logger;
  stop(): Promise<void>;
}

/** Starts the gateway: the public HTTP listener (and its websocket upgrades) plus the admin port. */
export async function startGateway(config: GatewayConfig): Promise<RunningGateway> {
  const logger = createLogger({ service: "gateway", level: config.logLevel });
  const registry = new Registry();
  registry.setDefaultLabels({ app: "gateway" });
  collectDefaultMetrics({ register: registry });
  const metrics = {
    requests: new Counter({
      name: "http_requests_total",
      help: "HTTP requests answered, by route template and status.",
      labelNames: ["method", "route", "status"] as const,
      registers: [registry],
    }),
    seconds: new Histogram({
      name: "http_request_duration_seconds",
      help: "Time to answer HTTP requests.",
      labelNames: ["method", "route"] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
  const identity = loadInternalIdentity(config.security, (error) =>
    logger.warn({ err: error.message }, "internal TLS files not reloaded"),
  );
  if (config.security.transport === "h2c") logger.warn(PLAINTEXT_WARNING);
  const clients = createServiceClients(config, identity);
  const tokenVerifier = createGatewayTokenVerifier(clients.auth, config.tokens);
  void tokenVerifier.warmUp();
  const deps = { config, clients, logger, tokenVerifier, identity };
  const app = createGatewayApp(deps, metrics);

  let accepting = true;
  const server: Server = createServer(app.callback());
  server.keepAliveTimeout = 5000;
  const sockets = new Set<Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("clientError", clientErrorHandler(logger));
  server.on("upgrade", createUpgradeHandler(deps));
  const port = await listen(server, config.port, config.host);
  const admin = createAdminServer(registry, () => accepting);
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
        const deadline = setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, config.shutdownTimeoutMs);
        deadline.unref();
        await closed;
        clearTimeout(deadline);
        await admin.close();
        identity.tls?.close();
        logger.info("stopped");
      })();
      return stopping;
    },
  };
}
