import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { type ErrorReason, GatewayReason, Reason } from "@movement-detection/shared/errors";
import type { Logger } from "@movement-detection/shared/logging";
import {
  acceptRequestId,
  REQUEST_ID_HEADER,
  redactedQuery,
} from "@movement-detection/shared/logging";
import {
  STREAM_ROUTE,
  streamPathSession,
  tunnelRequestHeaders,
} from "@movement-detection/shared/realtime";
import { ASSERTED_WORKLOAD_HEADER } from "@movement-detection/shared/security";
import { contextFromIncoming, outgoingTraceHeaders } from "@movement-detection/shared/telemetry";
import { type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
} from "@opentelemetry/semantic-conventions";
import type { ApiErrorCode } from "../errors/error-codes.js";
import { rawErrorResponse } from "../errors/raw-response.js";
import type { RouteDeps } from "../routes/route-deps.js";
import { clientCloseFrame, InboundFrameGuard } from "./frame-guard.js";
import { closeCodeLabel, FrameObserver } from "./frame-observer.js";
import { handshakeProblem } from "./handshake-headers.js";
import type { StreamProxyMetrics } from "./stream-metrics.js";
import { createStreamReplicas } from "./stream-replicas.js";

/** How long the server gets to answer the gateway's close before both sockets are cut. */
const CLOSE_GRACE_MS = 2000;
/** Close code 1001: going away (the contract: reconnect with backoff and resume). */
const GOING_AWAY = 1001;
/**
 * Headers the gateway sets itself on the forwarded upgrade (the trace: its own span's; the
 * asserted workload under h2c: its own, never the client's).
 */
const REPLACED_HEADERS = new Set([
  "x-request-id",
  "x-forwarded-for",
  "traceparent",
  "tracestate",
  "baggage",
  ASSERTED_WORKLOAD_HEADER,
]);

/**
 * Websocket upgrades on the public port: the realtime stream of detection sessions.
 *
 * The gateway does not terminate the websocket: it forwards the upgrade request to a detection
 * replica, as a stream of the HTTP/2 connection it shares with that replica (services/shared/
 * realtime/stream-tunnel.ts), and then pipes bytes both ways, so the handshake, `hello`, frames
 * and events are the replica's business and the gateway parses no message. Backpressure flows
 * end to end (TCP on the client's side, HTTP/2's per-stream flow control on the replica's), so
 * neither a fast client nor a slow reader makes the gateway buffer. The one public limit it
 * enforces is the message size: the client's frame headers are read as they pass and a message
 * above the limit is never forwarded; the gateway closes it with 1009 instead.
 */
export interface UpgradeHandler {
  (request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /**
   * Draining: closes every proxied stream with 1001 (going away: the client reconnects, through
   * another gateway, and resumes), as a draining replica does.
   */
  drain(): void;
  /** Closes the connections to the replicas once their streams are done (shutdown). */
  close(): void;
}

export function createUpgradeHandler(deps: RouteDeps, metrics: StreamProxyMetrics): UpgradeHandler {
  const replicas = createStreamReplicas(
    deps.clients.detection,
    deps.config.detectionServiceUrls,
    deps.logger,
    deps.identity,
    (resumed) => metrics.upstreamHandshakes.inc({ resumed: String(resumed) }),
  );
  const { logger } = deps;
  /** The proxied streams' drain callbacks, while they are open. */
  const open = new Set<() => void>();
  let draining = false;

  const handler = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const requestId = acceptRequestId(request.headers[REQUEST_ID_HEADER] as string | undefined);
    const attach = startAttach(request, requestId, logger, metrics);
    if (streamPathSession(request.url) === undefined || request.method !== "GET") {
      attach.refused(404);
      refuse(socket, "not_found", GatewayReason.routeNotFound, "no websocket route here", attach);
      return;
    }
    if ((request.headers.upgrade ?? "").toLowerCase() !== "websocket") {
      attach.refused(400);
      refuse(
        socket,
        "invalid_argument",
        GatewayReason.upgradeNotWebsocket,
        "only websocket upgrades are served here",
        attach,
      );
      return;
    }
    const problem = handshakeProblem(request.headers);
    if (problem) {
      attach.refused(400);
      refuse(
        socket,
        "invalid_argument",
        GatewayReason.upgradeNotWebsocket,
        problem.message,
        attach,
        problem.headers,
      );
      return;
    }
    socket.on("error", () => socket.destroy());
    (socket as Socket).setNoDelay?.(true);
    const headers = tunnelRequestHeaders(request.url ?? "/", request.rawHeaders, REPLACED_HEADERS, {
      "x-request-id": requestId,
      "x-forwarded-for": request.socket.remoteAddress ?? "",
      ...attach.traceHeaders,
    });
    replicas.open(headers).then(
      (upstream) => {
        if (socket.destroyed) {
          upstream.stream.destroy();
          upstream.done();
          attach.refused(499);
          return;
        }
        attach.proxied(upstream.replica);
        const drain = pipeStream(socket, upstream.stream, head, upstream.maxMessageBytes, attach);
        open.add(drain);
        upstream.stream.once("close", () => {
          open.delete(drain);
          upstream.done();
        });
        if (draining) drain();
      },
      (error) => {
        logger.warn(
          { request_id: requestId, trace_id: attach.traceId, err: (error as Error).message },
          "no detection replica for a stream",
        );
        attach.refused(503, "unavailable");
        refuse(
          socket,
          "unavailable",
          Reason.dependencyUnavailable,
          "the realtime service is unavailable",
          attach,
        );
      },
    );
  };
  return Object.assign(handler, {
    drain: () => {
      draining = true;
      for (const drain of open) drain();
    },
    close: () => replicas.close(),
  });
}

/**
 * One stream through the gateway, for its span, its access log lines and the proxy's metrics:
 * `attach` (the upgrade was forwarded to a replica, or refused) and `detach` (both sockets closed:
 * how long, how many bytes and messages each way, and the first close code either side sent).
 */
interface StreamAttach {
  readonly requestId: string;
  readonly traceId: string | undefined;
  /** What the forwarded upgrade carries to the replica: this span as the parent. */
  readonly traceHeaders: Record<string, string>;
  refused(status: number, outcome?: string): void;
  proxied(replica: string): void;
  /** Bytes forwarded from the client to the replica. */
  inbound(bytes: Buffer): void;
  /** Bytes from the replica to the client (the first of them answer the upgrade). */
  outbound(bytes: Buffer): void;
  detached(): void;
}

function startAttach(
  request: IncomingMessage,
  requestId: string,
  logger: Logger,
  metrics: StreamProxyMetrics,
): StreamAttach {
  const started = performance.now();
  const parent = contextFromIncoming(request.headers);
  const span: Span = trace
    .getTracer("movement-detection/gateway")
    .startSpan(`WS ${STREAM_ROUTE}`, { kind: SpanKind.SERVER }, parent);
  const ctx = trace.setSpan(parent, span);
  const own = span.spanContext();
  const url = request.url ?? "";
  const path = url.split("?")[0];
  const line = {
    method: request.method,
    route: streamPathSession(url) === undefined ? "unmatched" : STREAM_ROUTE,
    path,
    query: redactedQuery(url),
    request_id: requestId,
    trace_id: trace.isSpanContextValid(own) ? own.traceId : undefined,
  };
  if (span.isRecording()) {
    span.setAttributes({
      [ATTR_HTTP_REQUEST_METHOD]: request.method ?? "GET",
      [ATTR_URL_PATH]: path,
      [ATTR_HTTP_ROUTE]: STREAM_ROUTE,
    });
  }
  const endSpan = (status: number) => {
    if (!span.isRecording()) return span.end();
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  let replica: string | undefined;
  let answered = false;
  let firstClose: { code: number; from: "client" | "service" } | undefined;
  const inbound = new FrameObserver(false);
  const outbound = new FrameObserver(true);
  const observe = (
    observer: FrameObserver,
    direction: "inbound" | "outbound",
    from: "client" | "service",
    bytes: Buffer,
  ) => {
    const messagesBefore = observer.messages;
    observer.push(bytes);
    const tally = metrics.traffic[direction];
    tally.bytes += bytes.length;
    tally.messages += observer.messages - messagesBefore;
    if (!firstClose && observer.closeCode !== undefined) {
      firstClose = { code: observer.closeCode, from };
    }
  };
  return {
    requestId,
    traceId: line.trace_id,
    traceHeaders: outgoingTraceHeaders(ctx),
    refused(status, outcome = "refused") {
      metrics.attaches.inc({ outcome });
      endSpan(status);
      const fields = { ...line, status, ms: elapsed(started) };
      if (status >= 500) logger.warn(fields, "stream refused");
      else logger.info(fields, "stream refused");
    },
    proxied(to) {
      replica = to;
      metrics.attaches.inc({ outcome: "proxied" });
      metrics.open.inc();
      logger.info({ ...line, replica }, "stream attached");
    },
    inbound(bytes) {
      if (bytes.length > 0) observe(inbound, "inbound", "client", bytes);
    },
    outbound(bytes) {
      if (!answered) {
        answered = true;
        endSpan(101);
      }
      observe(outbound, "outbound", "service", bytes);
    },
    detached() {
      metrics.open.dec();
      if (!answered) endSpan(502);
      metrics.closes.inc({ code: closeCodeLabel(firstClose?.code) });
      const seconds = (performance.now() - started) / 1000;
      metrics.seconds.observe(seconds);
      logger.info(
        {
          ...line,
          replica,
          ms: elapsed(started),
          bytes_in: inbound.bytes,
          bytes_out: outbound.bytes,
          messages_in: inbound.messages,
          messages_out: outbound.messages,
          close_code: firstClose?.code,
          closed_by: firstClose?.from,
        },
        "stream detached",
      );
    },
  };
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}

/** Pipes one stream both ways; returns its drain: a 1001 close for the client, sent on its behalf. */
function pipeStream(
  client: Duplex,
  server: Duplex,
  head: Buffer,
  maxMessageBytes: number,
  attach: StreamAttach,
): () => void {
  const guard = new InboundFrameGuard(maxMessageBytes);
  let refused = false;
  let drainWanted = false;

  /**
   * Speaks for the client towards the server: `code` in a close frame, between two of the
   * client's frames. The server answers with its own close frame (the same code and reason),
   * which reaches the client through the other pipe; both sockets are cut after a grace period.
   */
  const closeOnBehalf = (code: number, reason: string) => {
    refused = true;
    const close = clientCloseFrame(code, reason);
    attach.inbound(close);
    server.write(close);
    client.pause();
    setTimeout(() => {
      server.destroy();
      client.destroy();
    }, CLOSE_GRACE_MS).unref();
  };
  const drainIfDue = () => {
    if (drainWanted && !refused && guard.atFrameBoundary()) {
      closeOnBehalf(GOING_AWAY, "gateway shutting down: reconnect");
    }
  };

  const forward = (chunk: Buffer) => {
    if (refused) return;
    const { forward: bytes, refusal } = guard.push(chunk);
    attach.inbound(bytes);
    const flowing = bytes.length === 0 || server.write(bytes);
    if (refusal) {
      // Never forward the message; speak for the client instead.
      closeOnBehalf(refusal.closeCode, refusal.reason);
      return;
    }
    drainIfDue();
    if (refused) return;
    if (!flowing) {
      client.pause();
      server.once("drain", () => client.resume());
    }
  };
  if (head.length > 0) forward(head);
  client.on("data", forward);
  server.on("data", (chunk: Buffer) => attach.outbound(chunk));
  // The server's bytes (the 101, events, its close frame) are flushed before the client's end.
  server.pipe(client);
  server.on("error", () => client.destroy());
  // Closed before its end was read: reset, or its connection lost. The client's socket goes too.
  server.on("close", () => {
    if (!server.readableEnded) client.destroy();
  });
  client.on("end", () => server.end());
  client.on("close", () => server.destroy());
  let detached = false;
  const detach = () => {
    if (detached || !client.destroyed || !server.destroyed) return;
    detached = true;
    attach.detached();
  };
  client.on("close", detach);
  server.on("close", detach);
  return () => {
    drainWanted = true;
    drainIfDue();
  };
}

function refuse(
  socket: Duplex,
  code: ApiErrorCode,
  reason: ErrorReason,
  message: string,
  attach: Pick<StreamAttach, "requestId" | "traceId">,
  headers?: Readonly<Record<string, string>>,
): void {
  socket.end(
    rawErrorResponse({
      code,
      reason,
      message,
      requestId: attach.requestId,
      traceId: attach.traceId,
      headers,
    }),
  );
}
