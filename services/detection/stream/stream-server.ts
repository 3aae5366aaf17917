import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { WebSocketServer } from "ws";
import { isUuid } from "../../shared/ids/uuid-v7.js";
import type { Logger } from "../../shared/logging/logger.js";
import {
  acceptRequestId,
  REQUEST_ID_HEADER,
  runWithRequestContext,
} from "../../shared/logging/request-context.js";
import { listen } from "../../shared/runtime/listen.js";
import {
  ASSERTED_WORKLOAD_HEADER,
  type InternalIdentity,
} from "../../shared/security/internal-transport.js";
import { workloadOfSocket } from "../../shared/security/peer-identity.js";
import { startAttachTrace } from "./attach-trace.js";
import { handleStreamConnection, type StreamConnectionDeps } from "./stream-connection.js";

/** The public path of a session's stream; the gateway forwards it unchanged. */
const STREAM_PATH = /^\/api\/detection\/sessions\/([^/?#]+)\/stream(?:\?.*)?$/;

/**
 * The replica's websocket listener (HTTP/1.1, beside the gRPC port). Only the gateway reaches it:
 * under mtls the listener is TLS 1.3 and refuses, at the handshake, any peer without a certificate
 * of our CA, and answers 403 to a certificate that is not the gateway's. It speaks contract 1 end
 * to end with the client (the runtime token in `hello` authenticates the client itself).
 */
export interface StreamServer {
  listen(port: number, host: string): Promise<number>;
  /** Stops accepting; open sockets are closed by their sessions (or cut after the deadline). */
  close(deadlineMs: number): Promise<void>;
}

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
  const sockets = new Set<Socket>();
  const onRequest = (_request: IncomingMessage, response: ServerResponse) => {
    response
      .writeHead(426, { "content-type": "text/plain", upgrade: "websocket" })
      .end("websocket only\n");
  };
  const tls = options.identity.tls;
  let server: Server;
  if (tls) {
    const secure = createTlsServer(tls.serverOptions(), onRequest);
    tls.onReload((files) => secure.setSecureContext(files));
    server = secure;
  } else {
    server = createServer(onRequest);
  }
  const security = options.identity.security;
  const fromGateway = (request: IncomingMessage): boolean =>
    tls
      ? workloadOfSocket(request.socket as TLSSocket, security.trustDomain) === "gateway"
      : request.headers[ASSERTED_WORKLOAD_HEADER] === "gateway";
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("upgrade", (request: IncomingMessage, socket: Socket, head: Buffer) => {
    if (!fromGateway(request)) {
      options.logger.warn(
        { remote: request.socket.remoteAddress },
        "stream upgrade refused: not the gateway",
      );
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    const match = STREAM_PATH.exec(request.url ?? "");
    if (!match || request.method !== "GET") {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    socket.setNoDelay(true);
    const sessionId = isUuid(match[1]) ? match[1] : undefined;
    const headerToken = bearerToken(request.headers.authorization);
    const requestId = acceptRequestId(request.headers[REQUEST_ID_HEADER] as string | undefined);
    const attachTrace = startAttachTrace(request.headers);
    wss.handleUpgrade(request, socket, head, (ws) => {
      runWithRequestContext({ requestId }, () =>
        handleStreamConnection(ws, sessionId, headerToken, options, attachTrace),
      );
    });
  });

  return {
    listen(port, host) {
      return listen(server, port, host);
    },
    async close(deadlineMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
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

function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}
