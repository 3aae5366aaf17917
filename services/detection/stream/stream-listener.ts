import type { Server as HttpServer } from "node:http";
import type { Http2Server } from "node:http2";
import { createServer as createNetServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer, type TLSSocket } from "node:tls";
import type { InternalIdentity } from "@movement-detection/shared/security";

/** The first bytes of every HTTP/2 connection without TLS (RFC 9113 §3.4: the client preface). */
const H2_PREFACE_START = Buffer.from("PRI * HTTP/2.0");
/** Under h2c, a connection that does not say which protocol it speaks within this is closed. */
const FIRST_BYTES_TIMEOUT_MS = 10_000;

/**
 * The replica's stream port: one listener serving both the gateway's HTTP/2 tunnel connection
 * and direct HTTP/1.1 websocket upgrades (internal tools, tests). Under mtls the protocol is
 * chosen by ALPN during the (mutual) TLS handshake; under h2c by the client's first bytes, HTTP/2's
 * connection preface. Each accepted connection is handed to the server of its protocol, which
 * never listens itself.
 */
export function createStreamListener(
  identity: InternalIdentity,
  http1: HttpServer,
  http2: Http2Server,
  firstBytesTimeoutMs = FIRST_BYTES_TIMEOUT_MS,
): Server {
  const tls = identity.tls;
  let listener: Server;
  if (tls) {
    const secure = createTlsServer(
      { ...tls.serverOptions(), ALPNProtocols: ["h2", "http/1.1"] },
      (socket: TLSSocket) => {
        (socket.alpnProtocol === "h2" ? http2 : http1).emit("connection", socket);
      },
    );
    tls.onReload((files) => secure.setSecureContext(files));
    listener = secure;
  } else {
    listener = createNetServer((socket) =>
      dispatchByPreface(socket, http1, http2, firstBytesTimeoutMs),
    );
  }
  listener.on("connection", (socket: Socket) => socket.setNoDelay(true));
  return listener;
}

function dispatchByPreface(
  socket: Socket,
  http1: HttpServer,
  http2: Http2Server,
  timeoutMs: number,
): void {
  let head = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const compared = Math.min(head.length, H2_PREFACE_START.length);
    const isH2 = head.subarray(0, compared).equals(H2_PREFACE_START.subarray(0, compared));
    if (isH2 && head.length < H2_PREFACE_START.length) return; // not decided yet
    socket.off("data", onData);
    socket.off("error", onError);
    socket.setTimeout(0);
    socket.off("timeout", onError);
    socket.pause();
    socket.unshift(head);
    if (isH2) {
      // HTTP/2 reads the socket's buffered bytes itself, then consumes its handle: resuming the
      // JS stream too would hand it the preface twice.
      http2.emit("connection", socket);
    } else {
      http1.emit("connection", socket);
      socket.resume();
    }
  };
  const onError = () => socket.destroy();
  socket.on("data", onData);
  socket.on("error", onError);
  socket.setTimeout(timeoutMs);
  socket.on("timeout", onError);
}
