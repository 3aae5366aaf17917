import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { RouteDeps } from "../routes/route-deps.js";

/**
 * Websocket upgrades on the public port (the realtime stream of detection sessions, issue 7).
 * Until the stream exists, every upgrade is refused with the contract's 404 envelope.
 */
export function createUpgradeHandler(
  _deps: RouteDeps,
): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (_request, socket) => {
    const body = JSON.stringify({
      error: {
        code: "not_found",
        message: "no websocket route here",
        retryable: false,
        details: { reason: "ROUTE_NOT_FOUND" },
      },
    });
    socket.end(
      `HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
