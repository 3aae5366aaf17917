/**
 * A detection replica's stream side with the libraries only (live-floor.bench.ts starts it):
 * mutual TLS, the gateway's HTTP/2 tunnel (the replica's session settings), each stream handed to
 * a `ws` server as an upgrade. Per message: `hello` answered with `ready`; a binary frame's `seq`
 * read, and for the frames the squat MoveSpec makes events for (FLOOR_EVENT_SEQS) an event-sized
 * text message back. No token, engine, checkpoint, lease, metrics or logging.
 */
import { setMaxListeners } from "node:events";
import type { IncomingMessage } from "node:http";
import http2 from "node:http2";
import type { Duplex } from "node:stream";
import {
  openConnectionWindow,
  TUNNEL_SESSION_OPTIONS,
  tunnelledUpgrade,
} from "@movement-detection/shared/realtime";
import { WebSocketServer } from "ws";
import { floorIdentity } from "../../support/floor-identity.js";

const eventSeqs = new Set((process.env.FLOOR_EVENT_SEQS ?? "").split(",").map(Number));
const tls = floorIdentity("detection").tls;
if (!tls) throw new Error("the floor runs under mutual TLS");
const EVENT = '{"type":"event","event":{"type":"rep.completed","seq":';

const wss = new WebSocketServer({
  noServer: true,
  maxPayload: 64 * 1024,
  perMessageDeflate: false,
  clientTracking: false,
});
const server = http2.createSecureServer({ ...tls.serverOptions(), ...TUNNEL_SESSION_OPTIONS });
server.on("session", (session) => openConnectionWindow(session));
server.on("stream", (stream, headers) => {
  const upgrade = tunnelledUpgrade(headers);
  if (!upgrade) return stream.respond({ ":status": 405 }, { endStream: true });
  stream.respond({ ":status": 200 });
  setMaxListeners(0, stream);
  wss.handleUpgrade(upgrade as IncomingMessage, stream as Duplex, Buffer.alloc(0), (ws) => {
    ws.on("message", (data: Buffer, isBinary) => {
      if (!isBinary) {
        if (data.toString().startsWith('{"type":"hello"')) ws.send('{"type":"ready"}');
        return;
      }
      const seq = data.readDoubleLE(8);
      if (eventSeqs.has(seq)) ws.send(`${EVENT}${seq},"rep":1,"metrics":{"depth":0.91}}}`);
    });
  });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === "object" && address ? address.port : 0}\n`);
});
