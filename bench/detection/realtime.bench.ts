/**
 * Realtime detection benchmark (run on demand, never in `npm test`):
 *
 *   node --import tsx bench/detection/realtime.bench.ts
 *
 * One run, on this machine, load generator included (this process), against the whole system
 * (embedded store, services, gateway) started with LOG_LEVEL=info:
 *
 * 1. live capacity: N concurrent `live` sessions, each sending one frame per message at 30 fps
 *    (UI-PRMD deep squat m01_s01, one frame = 33 keypoints, ~1.4 KB; each session starts at its
 *    own point of the recording, so that events do not all fall at once) through the gateway, for
 *    BENCH_LIVE_SECONDS; latency = time from sending a frame to receiving the first event the
 *    engine makes for it (only frames that make events are timed), after a 2 s warm-up. N steps
 *    up through BENCH_LEVELS; the figure is the largest N with p99 < 50 ms and every frame
 *    accepted (no rate limiting, no drops).
 * 2. replay throughput: one `replay` session, BENCH_REPLAY_FRAMES frames in `frames` batches of
 *    40 (~56 KB, under the 64 KiB limit), as fast as the service takes them (the client keeps at
 *    most 8,000 frames unacknowledged), until `end` after finalize: frames per second.
 * 3. the same replay load straight to a detection replica's stream port (no gateway): the
 *    baseline of the gateway's cost. Trials of 2 and 3 alternate; medians reported.
 *
 * Both frame encodings (issue 16): every live level runs in JSON and in binary (one after the
 * other, same conditions), and the replay variants (JSON in batches of 40, binary in batches of
 * BENCH_BINARY_BATCH, each through the gateway and direct) alternate in every trial. Per
 * measurement: CPU µs per frame of every process (the load generator included) and, for live
 * levels, the resident memory per open session of detection and the gateway.
 *
 * Environment: BENCH_LEVELS (default 100,250,500,750,1000), BENCH_LIVE_SECONDS (10),
 * BENCH_REPLAY_FRAMES (200000), BENCH_REPLAY_WINDOW (30000: frames the replay client sends ahead
 * of the last ack), BENCH_TRIALS (3), BENCH_ENCODINGS (json,binary), BENCH_BINARY_BATCH (100),
 * BENCH_LIVE_DIRECT=1 to also run the live levels straight to the replica, BENCH_PROFILE_DIR to
 * CPU-profile detection and the gateway, BENCH_NODE_OPTIONS for Node flags of detection and the
 * gateway (garbage-collector settings, for instance).
 */
import { DetectionService } from "@movement-detection/proto/detection/v1";
import {
  createTenant,
  exampleYaml,
  publishMoveSpec,
} from "../../test/detection/support/session-api.js";
import { loadExample, readFrames, runFrames } from "../../test/movespec/support/recordings.js";
import { median } from "../../test/support/statistics.js";
import { startTestSystem, type TestSystem } from "../../test/support/system.js";
import { tlsFilesOf, workloadClient } from "../../test/support/workloads.js";
import { profilingEnv } from "../support/profiling.js";
import { type Encoding, prepareFrames } from "./load.js";
import {
  cpuSpent,
  cpuSpentPerProcess,
  liveLevel,
  machineBusy,
  processCpu,
  replayRun,
  type Target,
} from "./scenarios.js";

const LEVELS = (process.env.BENCH_LEVELS ?? "100,250,500,750,1000")
  .split(",")
  .map(Number)
  .filter((level) => level > 0);
const LIVE_SECONDS = Number(process.env.BENCH_LIVE_SECONDS ?? 10);
const REPLAY_FRAMES = Number(process.env.BENCH_REPLAY_FRAMES ?? 200_000);
const TRIALS = Number(process.env.BENCH_TRIALS ?? 3);
const BATCH = 40;
const BINARY_BATCH = Number(process.env.BENCH_BINARY_BATCH ?? 100);
const ENCODINGS = (process.env.BENCH_ENCODINGS ?? "json,binary").split(",") as Encoding[];
const P99_BUDGET_MS = 50;

/** Node options for detection and the gateway: profiling, and BENCH_NODE_OPTIONS (e.g. GC flags). */
function serviceNodeEnv(): Record<string, string> {
  const profiling = process.env.BENCH_PROFILE_DIR
    ? profilingEnv(process.env.BENCH_PROFILE_DIR)
    : {};
  const extra = process.env.BENCH_NODE_OPTIONS;
  if (!extra) return profiling;
  return { ...profiling, NODE_OPTIONS: [profiling.NODE_OPTIONS, extra].filter(Boolean).join(" ") };
}

async function main(): Promise<void> {
  const frames = readFrames("m01_s01");
  const eventSeqs = runFrames(loadExample("squat"), frames).map((event) => event.seq);
  const prepared = prepareFrames(frames, eventSeqs);
  const system: TestSystem = await startTestSystem({
    env: { LOG_LEVEL: "info" },
    serviceEnv: {
      detection: {
        DETECTION_MAX_ACTIVE_SESSIONS_PER_PROJECT: "100000",
        ...serviceNodeEnv(),
      },
      gateway: serviceNodeEnv(),
    },
  });
  try {
    const tenant = await createTenant(system);
    const { movespecId } = await publishMoveSpec(tenant, exampleYaml("squat"), { name: "squat" });
    const { streamPort } = await workloadClient(
      system,
      DetectionService,
      "gateway",
    ).getStreamEndpoint({});
    const gateway: Target = { name: "gateway", url: (session) => session.stream_url };
    // Straight to the replica, as the gateway reaches it: mutual TLS with its certificate.
    const { cert, key, ca } = tlsFilesOf(system, "gateway");
    const direct: Target = {
      name: "direct",
      url: (session) =>
        `wss://127.0.0.1:${streamPort}/api/detection/sessions/${session.session_id}/stream`,
      tls: { cert, key, ca },
    };
    console.log(
      `machine: ${(await import("node:os")).cpus().length} cores, node ${process.version}`,
    );

    console.log(`\n1. live sessions at 30 fps, frame-to-event latency (${ENCODINGS.join(", ")})`);
    const targets = process.env.BENCH_LIVE_DIRECT === "1" ? [gateway, direct] : [gateway];
    for (const target of targets) {
      const held = new Map<Encoding, number>();
      const going = new Set<Encoding>(ENCODINGS);
      // Levels step up; at each level the encodings run one after the other (same conditions).
      for (const level of LEVELS) {
        for (const encoding of ENCODINGS) {
          if (!going.has(encoding)) continue;
          const result = await liveLevel(
            system,
            tenant,
            movespecId,
            prepared,
            target,
            level,
            LIVE_SECONDS,
            encoding,
          );
          const ok = result.p99 < P99_BUDGET_MS && result.problems === 0;
          if (ok) held.set(encoding, level);
          else going.delete(encoding);
          console.log(
            `   ${target.name} ${encoding.padEnd(6)} ${String(level).padStart(5)} sessions: p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, max ${result.max.toFixed(0)} ms (${result.samples} events timed, ${result.framesSent} frames sent, ${result.problems} problems) ${ok ? "OK" : "over budget"}`,
          );
          console.log(`         CPU µs per frame: ${perProcess(result.cpuPerFrame, 1)}`);
          console.log(
            `         memory per open session: resident ${perProcess(result.bytesPerSession, 1 / 1024, " KB")}; V8 heap ${perProcess(result.heapPerSession, 1 / 1024, " KB")}`,
          );
          console.log(`         CPU seconds over the ${LIVE_SECONDS} s: ${result.systemCpu}`);
          console.log(`         event-loop delay (ms): ${result.loopLag}`);
        }
        if (going.size === 0) break;
      }
      for (const encoding of ENCODINGS) {
        console.log(
          `   => ${target.name} ${encoding}: ${held.get(encoding) ?? 0} concurrent live sessions held with p99 < ${P99_BUDGET_MS} ms`,
        );
      }
    }

    const variants: { target: Target; encoding: Encoding; batch: number }[] = ENCODINGS.flatMap(
      (encoding) => {
        const batch = encoding === "binary" ? BINARY_BATCH : BATCH;
        return [
          { target: gateway, encoding, batch },
          { target: direct, encoding, batch },
        ];
      },
    );
    const label = (v: (typeof variants)[number]) => `${v.target.name} ${v.encoding} ×${v.batch}`;
    console.log(
      `\n2./3. one replay session, ${REPLAY_FRAMES} frames: ${variants.map(label).join(", ")}`,
    );
    const rates = new Map<string, number[]>();
    const cpuPerFrame = new Map<string, Map<string, number[]>>();
    for (const v of variants) {
      await replayRun(
        tenant,
        movespecId,
        prepared,
        v.target,
        REPLAY_FRAMES / 4,
        v.batch,
        v.encoding,
      ); // warm-up
    }
    for (let trial = 0; trial < TRIALS; trial += 1) {
      // Alternated, each trial in another order: a neighbour's load falls on every variant.
      const order = trial % 2 === 0 ? variants : [...variants].reverse();
      for (const v of order) {
        const before = processCpu(system);
        const busyBefore = machineBusy();
        const generatorBefore = process.cpuUsage();
        const result = await replayRun(
          tenant,
          movespecId,
          prepared,
          v.target,
          REPLAY_FRAMES,
          v.batch,
          v.encoding,
        );
        const generator = process.cpuUsage(generatorBefore);
        const after = processCpu(system);
        rates.set(label(v), [...(rates.get(label(v)) ?? []), result.framesPerSecond]);
        const spent = cpuSpentPerProcess(before, after);
        spent.set("load generator", (generator.user + generator.system) / 1e6);
        const perFrame = cpuPerFrame.get(label(v)) ?? new Map<string, number[]>();
        for (const [name, seconds] of spent) {
          perFrame.set(name, [...(perFrame.get(name) ?? []), (seconds * 1e6) / result.accepted]);
        }
        cpuPerFrame.set(label(v), perFrame);
        console.log(
          `   trial ${trial + 1} ${label(v).padEnd(20)} ${Math.round(result.framesPerSecond)} frames/s (${result.accepted} accepted; CPU s: ${cpuSpent(before, after, { busy: machineBusy() - busyBefore, generator: (generator.user + generator.system) / 1e6 })})`,
        );
      }
    }
    const medianOf = (v: (typeof variants)[number]) => median(rates.get(label(v)) ?? [Number.NaN]);
    for (const v of variants) {
      const perFrame = new Map(
        [...(cpuPerFrame.get(label(v)) ?? [])].map(([name, values]) => [name, median(values)]),
      );
      console.log(
        `   => ${label(v).padEnd(20)} median ${Math.round(medianOf(v))} frames/s; CPU µs per frame: ${perProcess(perFrame, 1)}`,
      );
    }
    for (const encoding of ENCODINGS) {
      const [via, straight] = variants.filter((v) => v.encoding === encoding);
      console.log(
        `   => ${encoding}: the gateway keeps ${((100 * medianOf(via)) / medianOf(straight)).toFixed(0)}% of the direct throughput`,
      );
    }
    if (ENCODINGS.length === 2) {
      const json = variants.find((v) => v.encoding === "json" && v.target === gateway);
      const binary = variants.find((v) => v.encoding === "binary" && v.target === gateway);
      if (json && binary) {
        console.log(
          `   => through the gateway, binary / JSON: ${(medianOf(binary) / medianOf(json)).toFixed(2)}×`,
        );
      }
    }
  } finally {
    await system.stop();
  }
}

/** `name value, name value` with values scaled and rounded, NaN left out. */
function perProcess(values: Map<string, number>, scale: number, unit = ""): string {
  return [...values]
    .filter(([, value]) => Number.isFinite(value))
    .map(([name, value]) => `${name} ${(value * scale).toFixed(value * scale < 10 ? 1 : 0)}${unit}`)
    .join(", ");
}

await main();
