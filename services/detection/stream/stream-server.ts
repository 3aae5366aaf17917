import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import {
  createServer as createHttp2Server,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from "node:http2";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { TLSSocket } from "node:tls";
import { isUuid } from "@movement-detection/shared/ids";
import type { Logger } from "@movement-detection/shared/logging";
import {
  acceptRequestId,
  REQUEST_ID_HEADER,
  runWithRequestContext,
} from "@movement-detection/shared/logging";
import { listen } from "@movement-detection/shared/process";
import {
  openConnectionWindow,
  streamPathSession,
  TUNNEL_SESSION_OPTIONS,
  tunnelledUpgrade,
} from "@movement-detection/shared/realtime";
import {
  ASSERTED_WORKLOAD_HEADER,
  bearerToken,
  type InternalIdentity,
  workloadOfSocket,
} from "@movement-detection/shared/security";
import { WebSocketServer } from "ws";
import { startAttachTrace } from "./attach-trace.js";
import { handleStreamConnection, type StreamConnectionDeps } from "./stream-connection.js";
import { createStreamListener } from "./stream-listener.js";

const NO_HEAD = Buffer.alloc(0);

/**
 * The replica's websocket listener (beside the gRPC port). Only the gateway reaches it: under
 * mtls the listener is TLS 1.3 and refuses, at the handshake, any peer without a certificate of
 * our CA, and answers 403 to a certificate that is not the gateway's. It speaks contract 1 end to
 * end with the client (the runtime token in `hello` authenticates the client itself).
 *
 * Two ways in, one websocket server behind them: the gateway's HTTP/2 connection, a stream per
 * client websocket (services/shared/realtime/stream-tunnel.ts), and a plain HTTP/1.1 upgrade
 * (internal tools and tests reaching a replica directly).
 */
export interface StreamServer {
  listen(port: number, host: string): Promise<number>;
  /** Stops accepting; open sockets are closed by their sessions (or cut after the deadline). */
  close(deadlineMs: number): Promise<void>;
}

/** An upgrade request as the websocket server reads it (Node's, or a tunnel's headers). */
type UpgradeRequest = Pick<IncomingMessage, "method" | "url" | "headers">;

export function createStreamServer(
  options: StreamConnectionDeps & {
    readonly maxMessageBytes: number;
    readonly logger: Logger;
    readonly identity: InternalIdentity;
  },
): StreamServer {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxMessageBytes,
    perMessageDeflate: false,
    clientTracking: false,
  });
  const { logger, identity } = options;
  const security = identity.security;
  /**
   * Under mtls the peer's certificate says (read once per connection: getPeerCertificate builds
   * the whole certificate object, and the gateway's streams share one HTTP/2 connection); under
   * h2c the asserted header (internal-security).
   */
  const peerIsGateway = new WeakMap<object, boolean>();
  const isGateway = (socket: Socket | TLSSocket, headers: IncomingHttpHeaders): boolean => {
    if (!identity.tls) return headers[ASSERTED_WORKLOAD_HEADER] === "gateway";
    let known = peerIsGateway.get(socket);
    if (known === undefined) {
      known = workloadOfSocket(socket as TLSSocket, security.trustDomain) === "gateway";
      peerIsGateway.set(socket, known);
    }
    return known;
  };

  const accept = (
    request: UpgradeRequest,
    socket: Duplex,
    head: Buffer,
    fromGateway: boolean,
    remote: string | undefined,
  ) => {
    if (!fromGateway) {
      logger.warn({ remote }, "stream upgrade refused: not the gateway");
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    const pathId = streamPathSession(request.url);
    if (pathId === undefined || request.method !== "GET") {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    const sessionId = isUuid(pathId) ? pathId : undefined;
    const headerToken = bearerToken(request.headers.authorization);
    const requestId = acceptRequestId(request.headers[REQUEST_ID_HEADER] as string | undefined);
    const attachTrace = startAttachTrace(request.headers);
    wss.handleUpgrade(request as IncomingMessage, socket, head, (ws) => {
      runWithRequestContext({ requestId }, () =>
        handleStreamConnection(ws, sessionId, headerToken, options, attachTrace),
      );
    });
  };

  const http1 = createServer((_request: IncomingMessage, response: ServerResponse) => {
    response
      .writeHead(426, { "content-type": "text/plain", upgrade: "websocket" })
      .end("websocket only\n");
  });
  http1.on("upgrade", (request: IncomingMessage, socket: Socket, head: Buffer) => {
    const fromGateway = isGateway(request.socket, request.headers);
    accept(request, socket, head, fromGateway, request.socket.remoteAddress);
  });

  const tunnels = createHttp2Server(TUNNEL_SESSION_OPTIONS);
  const sessions = new Set<ServerHttp2Session>();
  tunnels.on("session", (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
    session.on("error", (error) => logger.debug({ err: error.message }, "tunnel session error"));
    openConnectionWindow(session);
  });
  tunnels.on("stream", (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    stream.on("error", (error) => logger.debug({ err: error.message }, "tunnel stream error"));
    const upgrade = tunnelledUpgrade(headers);
    if (!upgrade) {
      stream.respond({ ":status": 405 }, { endStream: true });
      return;
    }
    const session = stream.session as ServerHttp2Session;
    const fromGateway = isGateway(session.socket, headers);
    stream.respond({ ":status": 200 });
    stream.once("aborted", () => dropUnread(stream));
    accept(upgrade, stream, NO_HEAD, fromGateway, session.socket?.remoteAddress);
  });

  const listener = createStreamListener(identity, http1, tunnels);
  const sockets = new Set<Socket>();
  listener.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });

  return {
    listen(port, host) {
      return listen(listener, port, host);
    },
    async close(deadlineMs) {
      const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
      // The gateway opens no new stream on a connection told to go away; open ones finish.
      for (const session of sessions) session.close();
      http1.closeIdleConnections();
      const deadline = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, deadlineMs);
      deadline.unref();
      await closed;
      clearTimeout(deadline);
      wss.close();
    },
  };
}

/**
 * The gateway resets a stream when its client's socket is gone. What the client sent that was not
 * read yet is then dropped, as a TCP connection's unread bytes are: a paused stream holds up to
 * its whole flow-control window (1 MiB) in memory, which the websocket would otherwise parse
 * after the fact (thousands of messages answered into a closed stream), delaying the release of
 * the session that a reconnecting client is waiting for.
 */
function dropUnread(stream: ServerHttp2Stream): void {
  stream.removeAllListeners("data");
  while (stream.read() !== null) {
    // discarded
  }
}
