/**
 * Would sharing connections make the gateway-to-detection hop cheaper? Many live streams'
 * messages carried three ways over mutual TLS, in one process (both ends on this event loop,
 * loopback; run on demand, never in `npm test`):
 *
 *   node --import tsx bench/detection/hop-multiplex.bench.ts
 *
 * - **a connection per stream** (today: a websocket per session, each on its own TLS
 *   connection): every message is its own write, its own TLS record and its own read;
 * - **one connection, messages of a turn written together**: each message framed with its
 *   stream's number and length, the turn's messages corked into one write (a few TLS records),
 *   split back into messages on the other side;
 * - **HTTP/2, a stream per session on one connection** (what a Connect/gRPC bidi stream would
 *   ride on): `stream.write` per message, nghttp2 framing and per-stream flow control.
 *
 * BENCH_STREAMS streams (300); in every event-loop turn BENCH_PER_TURN of them (10: 9,000
 * frames/s arrive at the gateway in turns of about a millisecond) send one message of
 * BENCH_MESSAGE_BYTES (1,000: a JSON frame of 33 keypoints with values rounded to 5 decimals),
 * BENCH_MESSAGES per round (30,000). Only the hop's bytes: no websocket framing on any of them.
 * CPU µs per message, both ends together; rounds alternate the variants (BENCH_ROUNDS, 5);
 * medians and ratios to a connection per stream.
 */
import { mkdtemp, rm } from "node:fs/promises";
import http2 from "node:http2";
import type net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import { median } from "../../test/support/statistics.js";
import { hopTls } from "./hop-tls.js";

const STREAMS = Number(process.env.BENCH_STREAMS ?? 300);
const PER_TURN = Number(process.env.BENCH_PER_TURN ?? 10);
const MESSAGE_BYTES = Number(process.env.BENCH_MESSAGE_BYTES ?? 1000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 30_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const HEADER_BYTES = 8;

interface Variant {
  readonly name: string;
  /** Sends one message on stream `stream` (within a turn). */
  send(stream: number, message: Buffer): void;
  /** Called before and after each turn's sends. */
  turn?(phase: "start" | "end"): void;
  readonly received: { messages: number };
  close(): void;
}

/** CPU µs of this process per message for MESSAGES messages, PER_TURN per turn. */
function run(variant: Variant): Promise<number> {
  const message = Buffer.alloc(MESSAGE_BYTES, 0x61);
  const target = variant.received.messages + MESSAGES;
  const before = process.cpuUsage();
  return new Promise((done) => {
    let sent = 0;
    let next = 0;
    const step = () => {
      variant.turn?.("start");
      for (let i = 0; i < PER_TURN && sent < MESSAGES; i += 1, sent += 1) {
        variant.send(next, message);
        next = (next + 1) % STREAMS;
      }
      variant.turn?.("end");
      if (sent < MESSAGES) setImmediate(step);
    };
    const check = setInterval(() => {
      if (variant.received.messages < target) return;
      clearInterval(check);
      const spent = process.cpuUsage(before);
      done((spent.user + spent.system) / MESSAGES);
    }, 2);
    step();
  });
}

function listening(server: net.Server): Promise<number> {
  return new Promise((done) =>
    server.listen(0, "127.0.0.1", () => done((server.address() as net.AddressInfo).port)),
  );
}

/** Counts the framed messages in a byte stream (header: stream u32, length u32). */
function deframer(onMessage: (stream: number, body: Buffer) => void) {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let at = 0;
    while (pending.length - at >= HEADER_BYTES) {
      const length = pending.readUInt32LE(at + 4);
      if (pending.length - at - HEADER_BYTES < length) break;
      onMessage(
        pending.readUInt32LE(at),
        pending.subarray(at + HEADER_BYTES, at + HEADER_BYTES + length),
      );
      at += HEADER_BYTES + length;
    }
    pending = at === pending.length ? Buffer.alloc(0) : pending.subarray(at);
  };
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "hop-multiplex-"));
  try {
    const { serverOptions, clientOptions } = await hopTls(root);

    // A connection per stream: every message its own write; the reader sees whole messages
    // (one write, one record, one read on loopback), so counting bytes counts them.
    const perStreamReceived = { messages: 0 };
    let perStreamBytes = 0;
    const perStreamServer = tls.createServer(serverOptions, (socket) =>
      socket.on("data", (data: Buffer) => {
        perStreamBytes += data.length;
        perStreamReceived.messages = Math.floor(perStreamBytes / MESSAGE_BYTES);
      }),
    );
    const perStreamPort = await listening(perStreamServer);
    const sockets: tls.TLSSocket[] = [];
    for (let i = 0; i < STREAMS; i += 1) {
      const socket = tls.connect(clientOptions(perStreamPort)).setNoDelay(true);
      await new Promise((done) => socket.once("secureConnect", done));
      sockets.push(socket);
    }
    const perStream: Variant = {
      name: "a connection per stream",
      send: (stream, message) => sockets[stream].write(message),
      received: perStreamReceived,
      close: () => {
        for (const socket of sockets) socket.destroy();
        perStreamServer.close();
      },
    };

    // One connection, a turn's messages framed and corked into one write.
    const sharedReceived = { messages: 0 };
    const sharedServer = tls.createServer(serverOptions, (socket) =>
      socket.on(
        "data",
        deframer(() => (sharedReceived.messages += 1)),
      ),
    );
    const sharedPort = await listening(sharedServer);
    const shared = tls.connect(clientOptions(sharedPort)).setNoDelay(true);
    await new Promise((done) => shared.once("secureConnect", done));
    const sharedVariant: Variant = {
      name: "one connection, a turn's messages in one write",
      turn: (phase) => (phase === "start" ? shared.cork() : shared.uncork()),
      send: (stream, message) => {
        const header = Buffer.allocUnsafe(HEADER_BYTES);
        header.writeUInt32LE(stream, 0);
        header.writeUInt32LE(message.length, 4);
        shared.write(header);
        shared.write(message);
      },
      received: sharedReceived,
      close: () => {
        shared.destroy();
        sharedServer.close();
      },
    };

    // HTTP/2: a stream per session on one TLS connection.
    const h2Received = { messages: 0 };
    let h2Bytes = 0;
    const window = 16 * 1024 * 1024;
    const h2Server = http2.createSecureServer({
      ...serverOptions,
      settings: { initialWindowSize: window },
    });
    h2Server.on("session", (session) => session.setLocalWindowSize(window));
    h2Server.on("stream", (stream) => {
      stream.respond({ ":status": 200 });
      stream.on("data", (data: Buffer) => {
        h2Bytes += data.length;
        h2Received.messages = Math.floor(h2Bytes / MESSAGE_BYTES);
      });
    });
    const h2Port = await listening(h2Server as unknown as net.Server);
    const h2Client = http2.connect(`https://127.0.0.1:${h2Port}`, {
      ...clientOptions(h2Port),
      settings: { initialWindowSize: window },
    });
    await new Promise((done) => h2Client.once("connect", done));
    const h2Streams = Array.from({ length: STREAMS }, () =>
      h2Client.request({ ":method": "POST", ":path": "/stream" }, { endStream: false }),
    );
    const h2Variant: Variant = {
      name: "HTTP/2, a stream per session",
      send: (stream, message) => h2Streams[stream].write(message),
      received: h2Received,
      close: () => {
        h2Client.destroy();
        h2Server.close();
      },
    };

    const variants = [perStream, sharedVariant, h2Variant];
    console.log(
      `node ${process.version}, one process, loopback, mutual TLS; ${STREAMS} streams, ${PER_TURN} messages of ${MESSAGE_BYTES} B per turn, ${MESSAGES} per round, ${ROUNDS} rounds`,
    );
    for (const variant of variants) await run(variant); // warm-up
    const cpu = new Map<Variant, number[]>(variants.map((v) => [v, []]));
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? variants : [...variants].reverse();
      for (const variant of order) cpu.get(variant)?.push(await run(variant));
    }
    const baseline = median(cpu.get(perStream) ?? []);
    console.log("\nCPU µs per message, both ends (median of rounds)");
    for (const variant of variants) {
      const us = median(cpu.get(variant) ?? []);
      console.log(
        `   ${variant.name.padEnd(48)} ${us.toFixed(1).padStart(6)}   ${(us / baseline).toFixed(2)}x`,
      );
    }
    for (const variant of variants) variant.close();
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
