import { parseArgs } from "node:util";
import { readCommandLine } from "../support/command-line.js";
import type { BenchSocket } from "./load.js";

const USAGE = `usage: node --import tsx bench/detection/lifecycle.bench.ts [options]

  --sessions N       sessions created, attached and finalized (200)
  --concurrency N    steps in flight at once (8)
  --frames N         frames each session sends before finalize (30)
  --warm-up N        lifecycles run first and not measured (200: the JIT needs a few hundred)
  --profile-dir DIR  CPU profiles of every service and the gateway
  --json             the result as JSON on stdout (the table goes to stderr)
  --help             this text
`;

function parseOptions() {
  return readCommandLine("lifecycle.bench", USAGE, (help) => {
    const { values } = parseArgs({
      options: {
        help: { type: "boolean", default: false },
        sessions: { type: "string", default: "200" },
        concurrency: { type: "string", default: "8" },
        frames: { type: "string", default: "30" },
        "warm-up": { type: "string", default: "200" },
        "profile-dir": { type: "string" },
        json: { type: "boolean", default: false },
      },
    });
    if (values.help) help();
    const numbers = {
      sessions: Number(values.sessions),
      concurrency: Number(values.concurrency),
      frames: Number(values.frames),
      "warm-up": Number(values["warm-up"]),
    };
    for (const [name, value] of Object.entries(numbers)) {
      const least = name === "frames" || name === "warm-up" ? 0 : 1;
      if (!Number.isInteger(value) || value < least) {
        throw new Error(`--${name} must be a whole number, ${least} or more`);
      }
    }
    if (numbers.frames > 1000) throw new Error("--frames must be 1000 or fewer (one message)");
    return {
      ...numbers,
      warmUp: numbers["warm-up"],
      profileDir: values["profile-dir"],
      json: values.json,
    };
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
const { squatTenant } = await import("../support/squat-tenant.js");
const { batchMessage, inBatches, openStream, percentile, prepareFrames } = await import(
  "./load.js"
);

const out = options.json ? process.stderr : process.stdout;
const say = (line: string) => out.write(`${line}\n`);
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
const STEPS = ["create", "attach", "finalize"] as const;
type Step = (typeof STEPS)[number];

interface Created {
  session_id: string;
  runtime_token: string;
  stream_url: string;
}

async function main(): Promise<number> {
  const frames =
    options.frames > 0
      ? batchMessage(prepareFrames(readFrames("m01_s01"), []), 0, options.frames)
      : "";
  const { stack, stop } = await startBenchStack({
    name: "lifecycle",
    profileDir: options.profileDir,
    profiled: ["auth", "catalogue", "authoring", "detection", "gateway"],
  });
  try {
    const { token, projectId, movespecId } = await squatTenant(stack);

    const create = async (): Promise<Created> => {
      const response = await api(stack.gatewayUrl, "POST", "/api/detection/sessions", {
        token,
        body: { project_id: projectId, movespec_id: movespecId, mode: "live" },
      });
      if (response.status !== 201) {
        throw new Error(`create: ${response.status} ${JSON.stringify(response.body)}`);
      }
      return response.body as unknown as Created;
    };
    const attach = (created: Created) => openStream(created.stream_url, created.runtime_token);
    const finalize = async (socket: BenchSocket) => {
      if (options.frames > 0) socket.ws.send(frames);
      const ended = socket.waitFor("end", 60_000);
      socket.ws.send('{"type":"finalize"}');
      const end = JSON.parse(await ended) as { status: string; accepted_frames_total: number };
      socket.ws.close(1000);
      if (end.status !== "completed" || end.accepted_frames_total !== options.frames) {
        throw new Error(`finalize: ${end.status}, ${end.accepted_frames_total} frames accepted`);
      }
    };

    // Warm-up: connections, caches and the JIT. With 20 lifecycles, the measured ones cost about
    // twice what they cost after a few hundred (the soak's processes are long warm).
    say(`warming up (${options.warmUp} lifecycles)...`);
    await inBatches(Array.from({ length: options.warmUp }), options.concurrency, async () =>
      finalize(await attach(await create())),
    );

    const idleRate = await idleCpuRates(stack);

    const perSession: Record<Step, Record<string, number>> = {
      create: {},
      attach: {},
      finalize: {},
    };
    const wall: Record<Step, { p50: number; p99: number; perSecond: number }> = {
      create: { p50: 0, p99: 0, perSecond: 0 },
      attach: { p50: 0, p99: 0, perSecond: 0 },
      finalize: { p50: 0, p99: 0, perSecond: 0 },
    };
    const measure = async <T, R>(
      step: Step,
      inputs: readonly T[],
      task: (input: T) => Promise<R>,
    ) => {
      const before = systemCpu(stack);
      const startedAt = performance.now();
      const times: number[] = [];
      const results = await inBatches(inputs, options.concurrency, async (input) => {
        const at = performance.now();
        const result = await task(input);
        times.push(performance.now() - at);
        return result;
      });
      const seconds = (performance.now() - startedAt) / 1000;
      const busy = busyMsPerItem(before, systemCpu(stack), idleRate, seconds, inputs.length);
      perSession[step] = Object.fromEntries(
        Object.entries(busy).map(([name, ms]) => [name, round(ms)]),
      );
      times.sort((a, b) => a - b);
      wall[step] = {
        p50: round(median(times), 1),
        p99: round(percentile(times, 99), 1),
        perSecond: round(inputs.length / seconds, 0),
      };
      return results;
    };

    say(
      `${options.sessions} lifecycles, ${options.concurrency} in flight, ${options.frames} frames each...`,
    );
    const created = await measure("create", Array.from({ length: options.sessions }), create);
    const sockets = await measure("attach", created, attach);
    await measure("finalize", sockets, finalize);

    const names = [...stack.processes.map((p) => p.name), "generator"];
    const total = (step: Step) =>
      round(names.reduce((sum, name) => sum + (perSession[step][name] ?? 0), 0));
    const lines = [
      "",
      `CPU ms per session (idle subtracted: ${names.map((n) => `${n} ${round(1000 * (idleRate.get(n) ?? 0), 0)} ms/s`).join(", ")})`,
      `${"step".padEnd(9)} ${names.map((n) => n.slice(0, 10).padStart(10)).join(" ")} ${"all".padStart(7)} | wall ms p50/p99, per s`,
    ];
    for (const step of STEPS) {
      lines.push(
        `${step.padEnd(9)} ${names.map((n) => (perSession[step][n] ?? 0).toFixed(2).padStart(10)).join(" ")} ${total(step).toFixed(2).padStart(7)} | ${wall[step].p50}/${wall[step].p99}, ${wall[step].perSecond}`,
      );
    }
    const lifecycle = Object.fromEntries(
      names.map((n) => [n, round(STEPS.reduce((sum, s) => sum + (perSession[s][n] ?? 0), 0))]),
    );
    lines.push(
      `${"all".padEnd(9)} ${names.map((n) => lifecycle[n].toFixed(2).padStart(10)).join(" ")} ${round(
        STEPS.reduce((sum, s) => sum + total(s), 0),
      )
        .toFixed(2)
        .padStart(7)}`,
    );
    say(lines.join("\n"));
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify({ options, cpu_ms_per_session: perSession, lifecycle_cpu_ms: lifecycle, wall_ms: wall }, null, 2)}\n`,
      );
    }
    return 0;
  } finally {
    await stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`lifecycle.bench failed: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
