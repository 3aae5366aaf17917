import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { type ErrorReason, GatewayReason, Reason } from "../../services/shared/errors/reasons.js";
import {
  acceptRequestId,
  REQUEST_ID_HEADER,
} from "../../services/shared/logging/request-context.js";
import { ASSERTED_WORKLOAD_HEADER } from "../../services/shared/security/internal-transport.js";
import type { ApiErrorCode } from "../errors/error-codes.js";
import { rawErrorResponse } from "../errors/raw-response.js";
import type { RouteDeps } from "../routes/route-deps.js";
import { clientCloseFrame, InboundFrameGuard } from "./frame-guard.js";
import { createStreamReplicas } from "./stream-replicas.js";

/** The public stream path (contract: `{public_base}/api/detection/sessions/{id}/stream`). */
const STREAM_PATH = /^\/api\/detection\/sessions\/[^/?#]+\/stream(?:\?.*)?$/;
const MESSAGE_TOO_BIG = 1009;
/** How long the server gets to answer the gateway's close before both sockets are cut. */
const CLOSE_GRACE_MS = 2000;
/** Headers the gateway sets itself on the forwarded upgrade. */
const REPLACED_HEADERS = new Set(["x-request-id", "x-forwarded-for", ASSERTED_WORKLOAD_HEADER]);

/**
 * Websocket upgrades on the public port: the realtime stream of detection sessions.
 *
 * The gateway does not terminate the websocket: it forwards the upgrade request to a detection
 * replica's stream listener and then pipes bytes both ways, so the handshake, `hello`, frames and
 * events are the replica's business and the gateway parses no message. TCP backpressure flows
 * end to end (pipe), so neither a fast client nor a slow reader makes the gateway buffer. The one
 * public limit it enforces is the message size: the client's frame headers are read as they pass
 * and a message above the limit is never forwarded; the gateway closes it with 1009 instead.
 */
export function createUpgradeHandler(
  deps: RouteDeps,
): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const replicas = createStreamReplicas(
    deps.clients.detection,
    deps.config.detectionServiceUrls,
    deps.logger,
    deps.identity,
  );
  const { logger } = deps;

  return (request, socket, head) => {
    if (!STREAM_PATH.test(request.url ?? "") || request.method !== "GET") {
      refuse(socket, "not_found", GatewayReason.routeNotFound, "no websocket route here");
      return;
    }
    if ((request.headers.upgrade ?? "").toLowerCase() !== "websocket") {
      refuse(
        socket,
        "invalid_argument",
        GatewayReason.upgradeNotWebsocket,
        "only websocket upgrades are served here",
      );
      return;
    }
    const requestId = acceptRequestId(request.headers[REQUEST_ID_HEADER] as string | undefined);
    socket.on("error", () => socket.destroy());
    (socket as Socket).setNoDelay?.(true);
    replicas.connect().then(
      (upstream) => {
        if (socket.destroyed) {
          upstream.socket.destroy();
          upstream.done();
          return;
        }
        logger.debug({ request_id: requestId, replica: upstream.replica }, "stream proxied");
        upstream.socket.write(upgradeRequest(request, requestId, upstream.headers));
        pipeStream(socket, upstream.socket, head, upstream.maxMessageBytes);
        upstream.socket.once("close", () => upstream.done());
      },
      (error) => {
        logger.warn(
          { request_id: requestId, err: (error as Error).message },
          "no detection replica for a stream",
        );
        refuse(
          socket,
          "unavailable",
          Reason.dependencyUnavailable,
          "the realtime service is unavailable",
          requestId,
        );
      },
    );
  };
}

/** The client's upgrade request, as the replica should see it. */
function upgradeRequest(
  request: IncomingMessage,
  requestId: string,
  extraHeaders: readonly string[],
): string {
  const lines = [`GET ${request.url} HTTP/1.1`];
  const raw = request.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!REPLACED_HEADERS.has(raw[i].toLowerCase())) lines.push(`${raw[i]}: ${raw[i + 1]}`);
  }
  lines.push(`X-Request-Id: ${requestId}`);
  lines.push(`X-Forwarded-For: ${request.socket.remoteAddress ?? ""}`);
  lines.push(...extraHeaders);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

function pipeStream(client: Duplex, server: Socket, head: Buffer, maxMessageBytes: number): void {
  const guard = new InboundFrameGuard(maxMessageBytes);
  let refused = false;

  const forward = (chunk: Buffer) => {
    if (refused) return;
    const { forward: bytes, tooBig } = guard.push(chunk);
    const flowing = bytes.length === 0 || server.write(bytes);
    if (tooBig) {
      // Never forward the oversized message; speak for the client instead. The server answers
      // with its own 1009 close frame, which reaches the client through the other pipe.
      refused = true;
      server.write(clientCloseFrame(MESSAGE_TOO_BIG, "message too big"));
      client.pause();
      setTimeout(() => {
        server.destroy();
        client.destroy();
      }, CLOSE_GRACE_MS).unref();
      return;
    }
    if (!flowing) {
      client.pause();
      server.once("drain", () => client.resume());
    }
  };

  if (head.length > 0) forward(head);
  client.on("data", forward);
  // The server's bytes (the 101, events, its close frame) are flushed before the client's end.
  server.pipe(client);
  server.on("error", () => client.destroy());
  server.on("close", (hadError) => {
    if (hadError) client.destroy();
  });
  client.on("end", () => server.end());
  client.on("close", () => server.destroy());
}

function refuse(
  socket: Duplex,
  code: ApiErrorCode,
  reason: ErrorReason,
  message: string,
  requestId: string = acceptRequestId(undefined),
): void {
  socket.end(rawErrorResponse({ code, reason, message, requestId }));
}
