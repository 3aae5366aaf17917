/**
 * The floor under every hop between our processes: what one small message costs the CPU of the
 * process that writes it and the one that reads it, when the two are separate processes on this
 * machine (run on demand, never in `npm test`):
 *
 *   node --import tsx bench/auth/message-round-trip.bench.ts
 *
 * A child process echoes whatever it reads; this process writes BENCH_MESSAGE_BYTES (default 200,
 * about a store command or a small gRPC message) and waits for the echo before the next, over TCP
 * loopback and over a Unix socket, BENCH_MESSAGES (default 20,000) round trips a block, blocks
 * alternated (BENCH_ROUNDS, default 5). Per message, medians of the blocks: wall time of the round
 * trip and the CPU time (user + system, from the processes' own counters) of each side. Unlike
 * tls-hop.bench.ts, whose two ends share one event loop, each message here wakes another process,
 * as between the gateway, the services and the store.
 */
import { type ChildProcess, fork } from "node:child_process";
import { rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "../../test/support/statistics.js";

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20_000);
const MESSAGE_BYTES = Number(process.env.BENCH_MESSAGE_BYTES ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

type Kind = "tcp" | "unix";
type CpuReply = { cpu: NodeJS.CpuUsage };

if (process.argv[2] === "--echo") {
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.on("data", (data) => socket.write(data));
  });
  const where = process.argv[3];
  const ready = () => process.send?.({ port: (server.address() as net.AddressInfo).port ?? 0 });
  if (where === "tcp") server.listen(0, "127.0.0.1", ready);
  else server.listen(where, ready);
  process.on("message", (message) => {
    if (message === "cpu") process.send?.({ cpu: process.cpuUsage() } satisfies CpuReply);
  });
  process.on("disconnect", () => process.exit(0));
} else {
  const socketPath = join(tmpdir(), `mds-round-trip-${process.pid}.sock`);
  const ask = <T>(child: ChildProcess, message: string): Promise<T> =>
    new Promise((resolve) => {
      child.once("message", (reply) => resolve(reply as T));
      child.send(message);
    });
  const cpuMicros = (usage: NodeJS.CpuUsage) => usage.user + usage.system;

  async function echo(kind: Kind) {
    if (kind === "unix") rmSync(socketPath, { force: true });
    const child = fork(process.argv[1], ["--echo", kind === "tcp" ? "tcp" : socketPath], {
      execArgv: process.execArgv,
    });
    const { port } = await new Promise<{ port: number }>((resolve) =>
      child.once("message", (message) => resolve(message as { port: number })),
    );
    const socket = kind === "tcp" ? net.connect(port, "127.0.0.1") : net.connect(socketPath);
    socket.setNoDelay(true);
    await new Promise((resolve) => socket.once("connect", resolve));
    const message = Buffer.alloc(MESSAGE_BYTES, 1);
    const block = async () => {
      const before = process.cpuUsage();
      const childBefore = (await ask<CpuReply>(child, "cpu")).cpu;
      const started = performance.now();
      for (let sent = 0; sent < MESSAGES; sent += 1) {
        let left = MESSAGE_BYTES;
        await new Promise<void>((resolve) => {
          const onData = (data: Buffer) => {
            left -= data.length;
            if (left > 0) return;
            socket.off("data", onData);
            resolve();
          };
          socket.on("data", onData);
          socket.write(message);
        });
      }
      const wall = performance.now() - started;
      const own = cpuMicros(process.cpuUsage(before));
      const childAfter = (await ask<CpuReply>(child, "cpu")).cpu;
      return {
        roundTripUs: (wall * 1000) / MESSAGES,
        writerUs: own / MESSAGES,
        echoUs: (cpuMicros(childAfter) - cpuMicros(childBefore)) / MESSAGES,
      };
    };
    const close = () => {
      socket.destroy();
      child.disconnect();
    };
    return { block, close };
  }

  const kinds: Kind[] = ["tcp", "unix"];
  const ends = { tcp: await echo("tcp"), unix: await echo("unix") };
  const results = new Map<Kind, { roundTripUs: number[]; writerUs: number[]; echoUs: number[] }>(
    kinds.map((kind) => [kind, { roundTripUs: [], writerUs: [], echoUs: [] }]),
  );
  try {
    for (const kind of kinds) await ends[kind].block();
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const kind of kinds) {
        const result = await ends[kind].block();
        const into = results.get(kind);
        into?.roundTripUs.push(result.roundTripUs);
        into?.writerUs.push(result.writerUs);
        into?.echoUs.push(result.echoUs);
      }
    }
  } finally {
    for (const kind of kinds) ends[kind].close();
    rmSync(socketPath, { force: true });
  }
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(
    `\none ${MESSAGE_BYTES}-byte message and its echo between two processes, ${MESSAGES} a block, median of ${ROUNDS} blocks`,
  );
  for (const kind of kinds) {
    const r = results.get(kind);
    if (!r) continue;
    out(
      `  ${kind.padEnd(5)} round trip ${median(r.roundTripUs).toFixed(1)} us; CPU per round trip: writer ${median(r.writerUs).toFixed(1)} us, echo ${median(r.echoUs).toFixed(1)} us`,
    );
  }
}
