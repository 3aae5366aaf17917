import { parseArgs } from "node:util";
import { readCommandLine } from "../support/command-line.js";
import type { BenchSocket } from "./load.js";

const USAGE = `usage: node --import tsx bench/detection/end-burst.bench.ts [options]

  --sessions N       sessions ended at once (30)
  --minutes A,B,...  their age: minutes of frames each streamed before its end, the first the
                     baseline (0.2,20)
  --rounds N         rounds, each ending a burst of every age (3)
  --profile-dir DIR  CPU profiles of detection and the gateway (slows them: for where
                     the time goes, not for the figures)
  --help             this text
`;

function parseOptions() {
  return readCommandLine("end-burst.bench", USAGE, (help) => {
    const { values } = parseArgs({
      options: {
        help: { type: "boolean", default: false },
        sessions: { type: "string", default: "30" },
        minutes: { type: "string", default: "0.2,20" },
        rounds: { type: "string", default: "3" },
        "profile-dir": { type: "string" },
      },
    });
    if (values.help) help();
    const sessions = Number(values.sessions);
    const rounds = Number(values.rounds);
    const minutes = values.minutes.split(",").map(Number);
    if (!Number.isInteger(sessions) || sessions < 1 || sessions > 200) {
      throw new Error("--sessions must be a whole number from 1 to 200");
    }
    if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be 1 or more");
    if (minutes.some((m) => !Number.isFinite(m) || m <= 0 || m > 240)) {
      throw new Error("--minutes must be ages from above 0 to 240 minutes, comma-separated");
    }
    return { sessions, rounds, minutes, profileDir: values["profile-dir"] };
  });
}

const options = parseOptions();
// Loaded once the command line is read: --help and a refused option answer at once, without
// loading the system the benchmark drives.
const { readFrames } = await import("../../test/movespec/support/recordings.js");
const { api } = await import("../../test/movespecs/support/api.js");
const { median } = await import("../../test/support/statistics.js");
const { busyMsPerItem, idleCpuRates, startBenchStack, systemCpu } = await import(
  "../support/bench-stack.js"
);
const { cpuSeconds } = await import("../support/process-stats.js");
const { squatTenant } = await import("../support/squat-tenant.js");
const { binaryBatchMessage, inBatches, openStream, prepareFrames } = await import("./load.js");

const FPS = 30;
/** Frames per binary message: a batch of 100 stays under the 64 KiB message limit. */
const BATCH = 100;
const SETTLE_MS = 2000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round1 = (x: number) => Math.round(x * 10) / 10;

interface Burst {
  readonly wallMs: number;
  readonly endBytes: number;
  /** CPU ms per session ended, per process (and `generator`, this process), idle taken off. */
  readonly cpu: Record<string, number>;
}

async function main(): Promise<number> {
  const { stack, stop } = await startBenchStack({
    name: "end-burst",
    profileDir: options.profileDir,
    profiled: ["detection", "gateway"],
  });
  try {
    const { token, projectId, movespecId } = await squatTenant(stack);
    const prepared = prepareFrames(readFrames("m01_s01"), []);
    const detection = stack.processes.find((p) => p.name === "detection")?.child.pid as number;

    /** Until detection used under 2 % of a core for a second: every frame is processed. */
    const untilDetectionIdle = async () => {
      for (let last = cpuSeconds(detection); ; ) {
        await sleep(1000);
        const now = cpuSeconds(detection);
        if (now - last < 0.02) return;
        last = now;
      }
    };

    const burst = async (minutes: number, idle: Map<string, number>): Promise<Burst> => {
      const frames = Math.round(minutes * 60 * FPS);
      const sockets = await inBatches(Array.from({ length: options.sessions }), 8, async () => {
        const created = await api(stack.gatewayUrl, "POST", "/api/detection/sessions", {
          token,
          body: { project_id: projectId, movespec_id: movespecId, mode: "replay" },
        });
        if (created.status !== 201) throw new Error(`create: ${created.status}`);
        const { stream_url, runtime_token } = created.body as Record<string, string>;
        const socket = await openStream(stream_url, runtime_token, undefined, "binary");
        for (let seq = 0; seq < frames; seq += BATCH) {
          socket.ws.send(binaryBatchMessage(prepared, seq, Math.min(BATCH, frames - seq)));
        }
        return socket;
      });
      await untilDetectionIdle();
      const before = systemCpu(stack);
      const started = performance.now();
      const ends = await Promise.all(sockets.map((socket) => finalize(socket, frames)));
      const wallMs = performance.now() - started;
      await sleep(SETTLE_MS);
      const seconds = (performance.now() - started) / 1000;
      const cpu = busyMsPerItem(before, systemCpu(stack), idle, seconds, options.sessions);
      return { wallMs, endBytes: median(ends), cpu };
    };

    process.stdout.write(
      `ending ${options.sessions} replay sessions at once, by age (minutes of squats at ${FPS} fps), ${options.rounds} rounds\n`,
    );
    const idle = await idleCpuRates(stack);
    const results = new Map<number, Burst[]>(options.minutes.map((m) => [m, []]));
    for (let r = 0; r < options.rounds; r += 1) {
      // Alternate the order too: a slower stretch of the machine then hits every age.
      const order = r % 2 === 0 ? options.minutes : [...options.minutes].reverse();
      for (const minutes of order) {
        const measured = await burst(minutes, idle);
        results.get(minutes)?.push(measured);
        process.stdout.write(
          `  round ${r + 1}, ${minutes} min: burst ${Math.round(measured.wallMs)} ms, end message ${Math.round(measured.endBytes / 1024)} KB, CPU ms per end ${JSON.stringify(Object.fromEntries(Object.entries(measured.cpu).map(([k, v]) => [k, round1(v)])))}\n`,
        );
      }
    }

    const names = [...stack.processes.map((p) => p.name), "generator"];
    const summary = options.minutes.map((minutes) => {
      const bursts = results.get(minutes) ?? [];
      const cpu = Object.fromEntries(
        names.map((name) => [name, median(bursts.map((b) => b.cpu[name] ?? 0))]),
      );
      const total = median(
        bursts.map((b) => Object.values(b.cpu).reduce((sum, value) => sum + value, 0)),
      );
      return { minutes, wallMs: median(bursts.map((b) => b.wallMs)), cpu, total, bursts };
    });
    const [baseline] = summary;
    process.stdout.write(
      `\nmedians, CPU ms per session ended (ratio to ${baseline.minutes} min):\n  ${"age".padEnd(9)} ${"burst ms".padEnd(10)} ${names.map((n) => n.padEnd(15)).join(" ")} all\n`,
    );
    for (const row of summary) {
      const cells = names.map((name) => {
        const base = baseline.cpu[name];
        const ratio = base > 0 ? ` (${(row.cpu[name] / base).toFixed(2)}x)` : "";
        return `${round1(row.cpu[name])}${ratio}`.padEnd(15);
      });
      process.stdout.write(
        `  ${`${row.minutes} min`.padEnd(9)} ${String(Math.round(row.wallMs)).padEnd(10)} ${cells.join(" ")} ${round1(row.total)} (${(row.total / baseline.total).toFixed(2)}x)\n`,
      );
    }
    return 0;
  } finally {
    await stop();
  }
}

/** `finalize` on the stream; resolves with the size of the `end` message once it arrives. */
async function finalize(socket: BenchSocket, frames: number): Promise<number> {
  const ended = socket.waitFor("end", 120_000);
  socket.ws.send('{"type":"finalize"}');
  const text = await ended;
  socket.ws.close(1000);
  const end = JSON.parse(text) as { status: string; accepted_frames_total: number };
  if (end.status !== "completed" || end.accepted_frames_total !== frames) {
    throw new Error(`end: ${end.status}, ${end.accepted_frames_total} of ${frames} frames`);
  }
  return Buffer.byteLength(text);
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`end-burst.bench: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
