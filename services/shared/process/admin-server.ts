import { createServer, type Server } from "node:http";
import type { Registry } from "prom-client";
import { listen } from "./listen.js";

/**
 * A small HTTP/1.1 listener beside the gRPC port, for Prometheus and for humans:
 * GET /metrics, GET /livez (process up), GET /readyz (200 only while serving; with `?verbose`, a
 * JSON report of what readiness is made of: each dependency and why it is missing).
 */
export interface AdminServer {
  listen(port: number, host: string): Promise<number>;
  close(): Promise<void>;
}

export function createAdminServer(
  registry: Registry,
  isReady: () => boolean,
  describeReadiness: () => Record<string, unknown> = () => ({}),
): AdminServer {
  const server: Server = createServer(async (request, response) => {
    const [path, query = ""] = (request.url ?? "/").split("?");
    if (request.method !== "GET") {
      response.writeHead(405, { allow: "GET", "content-type": "text/plain" }).end("GET only\n");
      return;
    }
    if (path === "/metrics") {
      const body = await registry.metrics();
      response.writeHead(200, { "content-type": registry.contentType }).end(body);
    } else if (path === "/livez") {
      response.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
    } else if (path === "/readyz" && new URLSearchParams(query).has("verbose")) {
      const ready = isReady();
      response
        .writeHead(ready ? 200 : 503, { "content-type": "application/json" })
        .end(`${JSON.stringify({ ready, ...describeReadiness() }, null, 2)}\n`);
    } else if (path === "/readyz") {
      const ready = isReady();
      response
        .writeHead(ready ? 200 : 503, { "content-type": "text/plain" })
        .end(ready ? "ready\n" : "not ready\n");
    } else {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    }
  });
  server.keepAliveTimeout = 1000;
  return {
    listen(port, host) {
      return listen(server, port, host);
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
