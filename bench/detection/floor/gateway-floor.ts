/**
 * The gateway's stream side with the libraries only (live-floor.bench.ts starts it): an HTTP/1.1
 * server taking websocket upgrades, each carried as a stream on one HTTP/2 connection to the
 * floor replica over mutual TLS (the tunnel's settings), bytes piped both ways. No token check,
 * frame guard, limits, metrics or logging.
 */
import http from "node:http";
import http2 from "node:http2";
import { connect } from "node:tls";
import {
  openConnectionWindow,
  TUNNEL_SESSION_OPTIONS,
  tunnelRequestHeaders,
} from "@movement-detection/shared/realtime";
import { floorIdentity } from "../../support/floor-identity.js";

const port = Number(process.env.FLOOR_DETECTION_PORT);
const tls = floorIdentity("gateway").tls;
if (!tls || !port) throw new Error("FLOOR_DETECTION_PORT and mutual TLS are required");
const session = http2.connect(`https://127.0.0.1:${port}`, {
  ...TUNNEL_SESSION_OPTIONS,
  createConnection: () =>
    connect({
      host: "127.0.0.1",
      port,
      ...tls.clientOptions("detection"),
      ALPNProtocols: ["h2"],
    }).setNoDelay(true),
});
session.once("connect", () => openConnectionWindow(session));

const server = http.createServer((_request, response) => response.writeHead(426).end());
server.on("upgrade", (request, socket, head) => {
  const stream = session.request(
    tunnelRequestHeaders(request.url ?? "/", request.rawHeaders, new Set(), {}),
    { endStream: false },
  );
  if (head.length > 0) stream.write(head);
  socket.pipe(stream);
  stream.pipe(socket);
  socket.on("error", () => stream.destroy());
  stream.on("error", () => socket.destroy());
  socket.on("close", () => stream.destroy());
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === "object" && address ? address.port : 0}\n`);
});
