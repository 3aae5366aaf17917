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
 * Environment: BENCH_LEVELS (default 100,250,500,750,1000), BENCH_LIVE_SECONDS (10),
 * BENCH_REPLAY_FRAMES (200000), BENCH_TRIALS (3), BENCH_LIVE_DIRECT=1 to also run the live
 * levels straight to the replica.
 */
import { DetectionService } from "../../proto/gen/detection/v1/detection_pb.js";
import {
  createTenant,
  exampleYaml,
  publishMoveSpec,
} from "../../test/detection/support/session-api.js";
import { loadExample, readFrames, runFrames } from "../../test/movespec/support/recordings.js";
import { median } from "../../test/support/statistics.js";
import { startTestSystem, type TestSystem } from "../../test/support/system.js";
import { tlsFilesOf, workloadClient } from "../../test/support/workloads.js";
import { prepareFrames } from "./load.js";
import {
  cpuSpent,
  liveLevel,
  machineBusy,
  processCpu,
  replayRun,
  type Target,
} from "./scenarios.js";

const LEVELS = (process.env.BENCH_LEVELS ?? "100,250,500,750,1000").split(",").map(Number);
const LIVE_SECONDS = Number(process.env.BENCH_LIVE_SECONDS ?? 10);
const REPLAY_FRAMES = Number(process.env.BENCH_REPLAY_FRAMES ?? 200_000);
const TRIALS = Number(process.env.BENCH_TRIALS ?? 3);
const BATCH = 40;
const P99_BUDGET_MS = 50;

async function main(): Promise<void> {
  const frames = readFrames("m01_s01");
  const eventSeqs = runFrames(loadExample("squat"), frames).map((event) => event.seq);
  const prepared = prepareFrames(frames, eventSeqs);
  const system: TestSystem = await startTestSystem({
    env: { LOG_LEVEL: "info" },
    serviceEnv: {
      detection: {
        DETECTION_MAX_ACTIVE_SESSIONS_PER_PROJECT: "100000",
        ...(process.env.BENCH_PROFILE_DIR
          ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}` }
          : {}),
      },
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

    console.log("\n1. live sessions at 30 fps, frame-to-event latency");
    const targets = process.env.BENCH_LIVE_DIRECT === "1" ? [gateway, direct] : [gateway];
    for (const target of targets) {
      let held = 0;
      for (const level of LEVELS) {
        const result = await liveLevel(
          system,
          tenant,
          movespecId,
          prepared,
          target,
          level,
          LIVE_SECONDS,
        );
        const ok = result.p99 < P99_BUDGET_MS && result.problems === 0;
        if (ok) held = level;
        console.log(
          `   ${target.name} ${String(level).padStart(5)} sessions: p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, max ${result.max.toFixed(0)} ms (${result.samples} events timed, ${result.framesSent} frames sent, ${result.problems} problems, load generator ${result.cpuSeconds.toFixed(1)} CPU s) ${ok ? "OK" : "over budget"}`,
        );
        console.log(`         CPU seconds over the ${LIVE_SECONDS} s: ${result.systemCpu}`);
        console.log(`         event-loop delay (ms): ${result.loopLag}`);
        if (!ok) break;
      }
      console.log(
        `   => ${target.name}: ${held} concurrent live sessions held with p99 < ${P99_BUDGET_MS} ms`,
      );
    }

    console.log(`\n2./3. one replay session, ${REPLAY_FRAMES} frames in batches of ${BATCH}`);
    const rates: Record<"gateway" | "direct", number[]> = { gateway: [], direct: [] };
    await replayRun(tenant, movespecId, prepared, gateway, REPLAY_FRAMES, BATCH); // warm-up
    for (let trial = 0; trial < TRIALS; trial += 1) {
      for (const target of trial % 2 === 0 ? [gateway, direct] : [direct, gateway]) {
        const before = processCpu(system);
        const busyBefore = machineBusy();
        const generatorBefore = process.cpuUsage();
        const result = await replayRun(tenant, movespecId, prepared, target, REPLAY_FRAMES, BATCH);
        const generator = process.cpuUsage(generatorBefore);
        rates[target.name].push(result.framesPerSecond);
        console.log(
          `   trial ${trial + 1} ${target.name}: ${Math.round(result.framesPerSecond)} frames/s (${result.accepted} accepted; CPU s: ${cpuSpent(before, processCpu(system), { busy: machineBusy() - busyBefore, generator: (generator.user + generator.system) / 1e6 })})`,
        );
      }
    }
    const viaGateway = median(rates.gateway);
    const straight = median(rates.direct);
    console.log(`   => median through the gateway: ${Math.round(viaGateway)} frames/s`);
    console.log(`   => median straight to the replica: ${Math.round(straight)} frames/s`);
    console.log(
      `   => the gateway keeps ${((100 * viaGateway) / straight).toFixed(0)}% of the direct throughput`,
    );
  } finally {
    await system.stop();
  }
}

await main();
