/**
 * What mutual TLS costs on the gateway-to-detection hop, in one process (both ends on this
 * event loop, loopback; run on demand, never in `npm test`):
 *
 *   node --import tsx bench/detection/tls-hop.bench.ts
 *
 * 1. Per message: one connection, BENCH_MESSAGES messages of BENCH_MESSAGE_BYTES (a JSON frame
 *    of 33 keypoints is about 1,400 bytes), one write per event-loop turn as the gateway forwards
 *    a live session's frames; CPU µs per message, write and read together. Baseline: plain TCP.
 * 2. Per connection: BENCH_CONNECTIONS connections, one after the other, each waiting for a byte
 *    from the server: a full mutual-TLS handshake with the workload certificates of `npm start`
 *    (ECDSA P-256, TLS 1.3), a resumed one (the client offers the last session ticket), and a
 *    plain TCP connection as the baseline.
 *
 * Rounds alternate the variants (BENCH_ROUNDS, default 5); medians and ratios to the baseline.
 */
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import { median } from "../../test/support/statistics.js";
import { hopTls } from "./hop-tls.js";

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 50_000);
const MESSAGE_BYTES = Number(process.env.BENCH_MESSAGE_BYTES ?? 1400);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

type Listener = { port: number; close(): void };

function listen(server: net.Server): Promise<Listener> {
  return new Promise((done) =>
    server.listen(0, "127.0.0.1", () =>
      done({ port: (server.address() as net.AddressInfo).port, close: () => server.close() }),
    ),
  );
}

/** CPU µs of this process per unit of work. */
async function cpuPer(units: number, work: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / units;
}

/** Writes `MESSAGES` messages, one per event-loop turn; resolves when the server read them all. */
function stream(client: net.Socket, counter: { bytes: number }): Promise<void> {
  const message = Buffer.alloc(MESSAGE_BYTES, 0x61);
  const target = counter.bytes + MESSAGES * MESSAGE_BYTES;
  return new Promise((done) => {
    let sent = 0;
    const step = () => {
      client.write(message);
      sent += 1;
      if (sent < MESSAGES) setImmediate(step);
    };
    const check = setInterval(() => {
      if (counter.bytes >= target) {
        clearInterval(check);
        done();
      }
    }, 2);
    step();
  });
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "tls-hop-"));
  try {
    const { serverOptions, clientOptions } = await hopTls(root);
    console.log(
      `node ${process.version}, one process, loopback; ${MESSAGES} messages of ${MESSAGE_BYTES} B, ${CONNECTIONS} connections, ${ROUNDS} rounds`,
    );

    // 1. per message
    const received = { bytes: 0 };
    const sink = (socket: net.Socket) =>
      socket.on("data", (d: Buffer) => (received.bytes += d.length));
    const tcpServer = await listen(net.createServer(sink));
    const tlsServer = await listen(tls.createServer(serverOptions, sink));
    const tcpClient = net.connect(tcpServer.port, "127.0.0.1").setNoDelay(true);
    await new Promise((done) => tcpClient.once("connect", done));
    const tlsClient = tls.connect(clientOptions(tlsServer.port)).setNoDelay(true);
    await new Promise((done) => tlsClient.once("secureConnect", done));
    const perMessage = { tcp: [] as number[], tls: [] as number[] };
    for (let round = 0; round < ROUNDS; round += 1) {
      perMessage.tcp.push(await cpuPer(MESSAGES, () => stream(tcpClient, received)));
      perMessage.tls.push(await cpuPer(MESSAGES, () => stream(tlsClient, received)));
    }
    tcpClient.destroy();
    tlsClient.destroy();
    const tcpMessage = median(perMessage.tcp);
    const tlsMessage = median(perMessage.tls);
    console.log("\n1. per message (CPU µs, write and read, median of rounds)");
    console.log(
      `   tcp ${tcpMessage.toFixed(1)}   tls ${tlsMessage.toFixed(1)}   tls/tcp ${(tlsMessage / tcpMessage).toFixed(2)}   tls - tcp ${(tlsMessage - tcpMessage).toFixed(1)} µs`,
    );

    // 2. per connection
    const hello = (socket: net.Socket) => socket.end("x");
    const tcpHello = await listen(net.createServer(hello));
    const tlsHello = await listen(tls.createServer(serverOptions, hello));
    let ticket: Buffer | undefined;
    let reused = 0;
    const connectTcp = () =>
      new Promise<void>((done, fail) => {
        const socket = net.connect(tcpHello.port, "127.0.0.1");
        socket
          .on("data", () => undefined)
          .once("end", () => done())
          .once("error", fail);
      });
    const connectTls = (resume: boolean) =>
      new Promise<void>((done, fail) => {
        const socket = tls.connect(clientOptions(tlsHello.port, resume ? ticket : undefined));
        socket.on("session", (session: Buffer) => (ticket = session));
        socket.once("secureConnect", () => {
          if (socket.isSessionReused()) reused += 1;
        });
        socket
          .on("data", () => undefined)
          .once("end", () => done())
          .once("error", fail);
      });
    const serially = async (connect: () => Promise<void>) => {
      for (let i = 0; i < CONNECTIONS; i += 1) await connect();
    };
    await serially(() => connectTls(false));
    const perConnection = { tcp: [] as number[], full: [] as number[], resumed: [] as number[] };
    reused = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      perConnection.tcp.push(await cpuPer(CONNECTIONS, () => serially(connectTcp)));
      perConnection.full.push(await cpuPer(CONNECTIONS, () => serially(() => connectTls(false))));
      perConnection.resumed.push(await cpuPer(CONNECTIONS, () => serially(() => connectTls(true))));
    }
    for (const listener of [tcpServer, tlsServer, tcpHello, tlsHello]) listener.close();
    const [tcp, full, resumed] = [perConnection.tcp, perConnection.full, perConnection.resumed].map(
      median,
    );
    console.log("\n2. per connection (CPU µs, both ends, median of rounds)");
    console.log(
      `   tcp ${tcp.toFixed(0)}   mTLS full ${full.toFixed(0)} (${(full / tcp).toFixed(1)}x)   mTLS resumed ${resumed.toFixed(0)} (${(resumed / tcp).toFixed(1)}x, ${reused} of ${ROUNDS * CONNECTIONS} resumed)`,
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
