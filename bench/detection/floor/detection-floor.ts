/**
 * A detection replica's stream side with the libraries only (live-floor.bench.ts starts it):
 * mutual TLS, the gateway's HTTP/2 tunnel (the replica's session settings), each stream handed to
 * a `ws` server as an upgrade. Per message: `hello` answered with `ready`; a binary frame's `seq`
 * read, and for the frames the squat MoveSpec makes events for (FLOOR_EVENT_SEQS) an event-sized
 * text message back. No token, engine, checkpoint, lease, metrics or logging.
 *
 * FLOOR_ENGINE=<example MoveSpec> adds the one part of ours a detection service cannot do without,
 * to tell it apart from the rest: each stream gets its own engine of that MoveSpec, each binary
 * message goes through `pushPacked` (the header read, not checked) and the engine's own events are
 * sent back as the service frames them. Still no token, guard, checkpoint, lease or metrics.
 */
import { setMaxListeners } from "node:events";
import type { IncomingMessage } from "node:http";
import http2 from "node:http2";
import type { Duplex } from "node:stream";
import { createEngine, type Engine, type PackedFrames } from "@movement-detection/movespec";
import { BINARY_FRAMES_HEADER_BYTES } from "@movement-detection/shared/api";
import {
  openConnectionWindow,
  TUNNEL_SESSION_OPTIONS,
  tunnelledUpgrade,
} from "@movement-detection/shared/realtime";
import { WebSocketServer } from "ws";
import { eventMessage } from "../../../services/detection/stream/stream-messages.js";
import { loadExample } from "../../../test/movespec/support/recordings.js";
import { floorIdentity } from "../../support/floor-identity.js";

const eventSeqs = new Set((process.env.FLOOR_EVENT_SEQS ?? "").split(",").map(Number));
const tls = floorIdentity("detection").tls;
if (!tls) throw new Error("the floor runs under mutual TLS");
const EVENT = '{"type":"event","event":{"type":"rep.completed","seq":';
const engineSpec = process.env.FLOOR_ENGINE ? loadExample(process.env.FLOOR_ENGINE) : undefined;

/** The engine's answer to one binary message: its events, framed as the service frames them. */
function engineAnswer(engine: Engine, data: Buffer): string[] {
  const { events } = engine.pushPacked({
    view: new DataView(data.buffer, data.byteOffset, data.length),
    offset: BINARY_FRAMES_HEADER_BYTES,
    count: data.readUInt32LE(4),
    valuesPerKeypoint: data[1] as PackedFrames["valuesPerKeypoint"],
  });
  return events.map(eventMessage);
}

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
    const engine = engineSpec && createEngine(engineSpec);
    ws.on("message", (data: Buffer, isBinary) => {
      if (!isBinary) {
        if (data.toString().startsWith('{"type":"hello"')) ws.send('{"type":"ready"}');
        return;
      }
      if (engine) {
        for (const message of engineAnswer(engine, data)) ws.send(message);
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
