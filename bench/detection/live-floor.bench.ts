/**
 * What a live frame must cost on this machine whatever our code does (run on demand, never in
 * `npm test`):
 *
 *   node --import tsx bench/detection/live-floor.bench.ts
 *
 * The same load, live sessions sending one binary frame per message at 30 fps (UI-PRMD deep squat
 * m01_s01, as realtime.bench.ts sends it: startLiveSending), against two chains:
 *
 * - **the system** (the baseline): the gateway and a detection replica as `npm test` starts them
 *   (LOG_LEVEL=info, mutual TLS), sessions created through the API;
 * - with BENCH_ENGINE_FLOOR=1, also **the floor with the engine** (`floor+engine`): the floor
 *   detection running the squat MoveSpec's engine on every frame and sending its events
 *   (detection-floor.ts's FLOOR_ENGINE), so that what our code costs around the engine can be
 *   told apart from what detecting movements costs at all;
 * - **the floor**: the same libraries and hops with nothing of ours between them
 *   (`floor/gateway-floor.ts`: HTTP/1.1 upgrades piped into streams of one HTTP/2 connection over
 *   mutual TLS; `floor/detection-floor.ts`: the tunnel's HTTP/2 server handing each stream to a
 *   `ws` server, `hello` answered, each frame's `seq` read, an event sent back for the frames the
 *   squat MoveSpec makes events for): no token, guard, engine, checkpoint, lease or metrics.
 *
 * At each of BENCH_LEVELS (300,1000) sessions, BENCH_TRIALS (2) trials alternate the chains, each
 * BENCH_LIVE_SECONDS (10) s after a 2 s warm-up. Per run: p50/p99 frame-to-event, CPU µs per
 * frame of the gateway, detection (and the system's store, which takes its checkpoints) and this
 * load generator, the most live sessions at 30 fps the machine's cores could carry at that CPU
 * per frame (every core busy on nothing else), of the gateway's and detection's CPU what their
 * threads other than the main one used (V8's garbage-collection and compiler helpers, libuv's
 * pool: what a CPU profile of the main thread does not show), and the gateway's and detection's
 * resident memory per open session: their mean resident set over the window (sampled every 250 ms:
 * under load it is a sawtooth, and one reading landed anywhere on it) less what they held just
 * before the chain's first sessions (a later trial measured from its own start missed a resident
 * set that never shrank back: it read negative). Medians. BENCH_PROFILE_DIR: the system's detection and gateway
 * write CPU profiles there (bench/support/cpu-profile.ts); BENCH_NODE_OPTIONS: Node options for
 * those two (GC flags, say).
 */
import { availableParallelism } from "node:os";
import {
  createTenant,
  exampleYaml,
  publishMoveSpec,
} from "../../test/detection/support/session-api.js";
import { loadExample, readFrames, runFrames } from "../../test/movespec/support/recordings.js";
import { median } from "../../test/support/statistics.js";
import { startTestSystem } from "../../test/support/system.js";
import type { FloorProcess } from "../support/floor-process.js";
import { helperThreadsCpuSeconds, meanWhile, residentBytes } from "../support/process-stats.js";
import { profilingEnv } from "../support/profiling.js";
import { type LiveFloor, startLiveFloor } from "./floor/live-floor-chain.js";
import { inBatches, openStream, percentile, prepareFrames } from "./load.js";
import { liveLevel, type StreamMemory, startLiveSending, streamMemory } from "./scenarios.js";

const LEVELS = (process.env.BENCH_LEVELS ?? "300,1000").split(",").map(Number);
const TRIALS = Number(process.env.BENCH_TRIALS ?? 2);
const SECONDS = Number(process.env.BENCH_LIVE_SECONDS ?? 10);
const WARM_UP_MS = 2000;
const FPS = 30;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Run {
  readonly p50: number;
  readonly p99: number;
  readonly problems: number;
  /** CPU µs per frame: gateway, detection (with the store for the system), load generator, total. */
  readonly cpu: Map<string, number>;
  /** Of `cpu`, the gateway's and detection's threads other than the main one, µs per frame. */
  readonly helperCpu: Map<string, number>;
  /** Resident memory per open session, bytes, of the gateway and detection together. */
  readonly residentPerSession: number;
  /** The system's: resident and V8 heap growth per session of each process, KB. */
  readonly memoryDetail?: string;
}

/** `count` live sessions through the floor gateway for SECONDS, measured as liveLevel measures. */
async function floorLevel(
  gatewayPort: number,
  floors: { gateway: FloorProcess; detection: FloorProcess },
  prepared: ReturnType<typeof prepareFrames>,
  count: number,
  residentIdle: number,
): Promise<Run> {
  const pids = [floors.gateway.child.pid, floors.detection.child.pid];
  const indices = Array.from({ length: count }, (_, index) => index);
  const sockets = await inBatches(indices, 32, (index) =>
    openStream(
      `ws://127.0.0.1:${gatewayPort}/api/detection/sessions/floor-${index}/stream`,
      "floor",
      undefined,
      "binary",
    ),
  );
  const live = startLiveSending(sockets, prepared, "binary");
  await sleep(WARM_UP_MS);
  live.measuring = true;
  const before = [floors.gateway.cpuSeconds(), floors.detection.cpuSeconds()];
  const helpersBefore = pids.map(helperThreadsCpuSeconds);
  const generatorBefore = process.cpuUsage();
  const resident = await meanWhile(SECONDS * 1000, 250, () => floorResident(floors));
  live.measuring = false;
  const generator = process.cpuUsage(generatorBefore);
  const after = [floors.gateway.cpuSeconds(), floors.detection.cpuSeconds()];
  const helpersAfter = pids.map(helperThreadsCpuSeconds);
  const residentPerSession = ((resident.get("floor") ?? Number.NaN) - residentIdle) / count;
  const { samples, problems } = await live.stop();
  const perFrame = (seconds: number) => (seconds * 1e6) / live.framesInWindow;
  return {
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    problems,
    residentPerSession,
    helperCpu: new Map([
      ["gateway", perFrame(helpersAfter[0] - helpersBefore[0])],
      ["detection", perFrame(helpersAfter[1] - helpersBefore[1])],
    ]),
    cpu: withTotal(
      new Map([
        ["gateway", perFrame(after[0] - before[0])],
        ["detection", perFrame(after[1] - before[1])],
        ["load generator", perFrame((generator.user + generator.system) / 1e6)],
      ]),
    ),
  };
}

/** The floor's gateway and detection together, bytes resident, as `floor`. */
function floorResident(floors: {
  gateway: FloorProcess;
  detection: FloorProcess;
}): Map<string, number> {
  const pids = [floors.gateway.child.pid, floors.detection.child.pid];
  return new Map([["floor", residentBytes(pids[0]) + residentBytes(pids[1])]]);
}

function withTotal(cpu: Map<string, number>): Map<string, number> {
  let total = 0;
  for (const value of cpu.values()) total += value;
  return cpu.set("total", total);
}

const cores = availableParallelism();
const sessionsAt = (microsPerFrame: number) => Math.floor((cores * 1e6) / (microsPerFrame * FPS));
const show = (cpu: Map<string, number>) =>
  [...cpu].map(([name, micros]) => `${name} ${micros.toFixed(1)}`).join(", ");

const frames = readFrames("m01_s01");
const eventSeqs = runFrames(loadExample("squat"), frames).map((event) => event.seq);
const prepared = prepareFrames(frames, eventSeqs);
// BENCH_PROFILE_DIR: the system's detection and gateway write CPU profiles there when they stop;
// BENCH_NODE_OPTIONS: more Node options for those two (V8 flags: e.g. --max-semi-space-size=2).
const profiling: Record<string, string> = process.env.BENCH_PROFILE_DIR
  ? profilingEnv(process.env.BENCH_PROFILE_DIR)
  : {};
if (process.env.BENCH_NODE_OPTIONS) {
  profiling.NODE_OPTIONS = [profiling.NODE_OPTIONS, process.env.BENCH_NODE_OPTIONS]
    .filter(Boolean)
    .join(" ");
}
const system = await startTestSystem({
  env: { LOG_LEVEL: "info" },
  serviceEnv: {
    detection: { DETECTION_MAX_ACTIVE_SESSIONS_PER_PROJECT: "100000", ...profiling },
    gateway: profiling,
  },
});
let floor: LiveFloor | undefined;
let engineFloor: LiveFloor | undefined;
try {
  floor = await startLiveFloor({
    detection: { FLOOR_EVENT_SEQS: [...prepared.eventSeqs].join(",") },
  });
  const { detection, gateway } = floor;
  if (process.env.BENCH_ENGINE_FLOOR === "1") {
    engineFloor = await startLiveFloor({ detection: { FLOOR_ENGINE: "squat" } });
  }
  const chains = engineFloor
    ? (["system", "floor", "floor+engine"] as const)
    : (["system", "floor"] as const);
  type Chain = (typeof chains)[number];
  const tenant = await createTenant(system);
  const { movespecId } = await publishMoveSpec(tenant, exampleYaml("squat"), { name: "squat" });
  const target = { name: "gateway" as const, url: (s: { stream_url: string }) => s.stream_url };

  // Memory per session: the growth over what each chain held just before its first sessions
  // (taken then, not at start-up: a process just started still holds its loading's garbage).
  let systemIdle: StreamMemory | undefined;
  let floorIdle: number | undefined;
  let engineFloorIdle: number | undefined;
  console.log(
    `machine: ${cores} cores, node ${process.version}; live binary sessions at ${FPS} fps`,
  );
  for (const level of LEVELS) {
    const runs: Record<Chain, Run[]> = { system: [], floor: [], "floor+engine": [] };
    for (let trial = 0; trial < TRIALS; trial += 1) {
      // Every chain first and last in turn, so that a machine slowing down weighs on each alike.
      const order = trial % 2 === 0 ? [...chains] : [...chains].reverse();
      for (const chain of order) {
        let run: Run;
        if (chain === "floor") {
          floorIdle ??= floorResident({ gateway, detection }).get("floor") ?? Number.NaN;
          run = await floorLevel(gateway.port, { gateway, detection }, prepared, level, floorIdle);
        } else if (chain === "floor+engine" && engineFloor) {
          engineFloorIdle ??= floorResident(engineFloor).get("floor") ?? Number.NaN;
          run = await floorLevel(
            engineFloor.gateway.port,
            engineFloor,
            prepared,
            level,
            engineFloorIdle,
          );
        } else {
          systemIdle ??= await streamMemory(system);
          const result = await liveLevel(
            system,
            tenant,
            movespecId,
            prepared,
            target,
            level,
            SECONDS,
            "binary",
            systemIdle,
          );
          const cpu = new Map<string, number>();
          for (const [name, micros] of result.cpuPerFrame) {
            if (["gateway", "embedded-mongo", "load generator"].includes(name))
              cpu.set(name, micros);
            if (name.startsWith("detection")) cpu.set("detection", micros);
          }
          const helperCpu = new Map<string, number>();
          for (const [name, micros] of result.helperCpuPerFrame) {
            helperCpu.set(name.startsWith("detection") ? "detection" : name, micros);
          }
          let resident = 0;
          for (const bytes of result.bytesPerSession.values()) resident += bytes;
          run = {
            p50: result.p50,
            p99: result.p99,
            problems: result.problems,
            residentPerSession: resident,
            cpu: withTotal(cpu),
            helperCpu,
            memoryDetail: [...result.bytesPerSession]
              .map(
                ([name, bytes]) =>
                  `${name} ${(bytes / 1024).toFixed(1)} (heap ${((result.heapPerSession.get(name) ?? Number.NaN) / 1024).toFixed(1)})`,
              )
              .join(", "),
          };
        }
        runs[chain].push(run);
        console.log(
          `  ${String(level).padStart(5)} sessions, ${chain.padEnd(6)}: p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms, ${run.problems} problems; CPU µs per frame: ${show(run.cpu)} (helper threads: ${show(run.helperCpu)}); resident memory per session ${(run.residentPerSession / 1024).toFixed(1)} KB${run.memoryDetail ? ` (${run.memoryDetail})` : ""}`,
        );
      }
    }
    const totals = new Map<Chain, number>();
    for (const chain of chains) {
      const cpu = new Map<string, number>();
      for (const name of runs[chain][0]?.cpu.keys() ?? []) {
        cpu.set(name, median(runs[chain].map((run) => run.cpu.get(name) ?? Number.NaN)));
      }
      const helpers = new Map<string, number>();
      for (const name of runs[chain][0]?.helperCpu.keys() ?? []) {
        helpers.set(name, median(runs[chain].map((run) => run.helperCpu.get(name) ?? Number.NaN)));
      }
      const total = cpu.get("total") ?? Number.NaN;
      totals.set(chain, total);
      console.log(
        `  => ${level} sessions, ${chain}: p99 ${median(runs[chain].map((run) => run.p99)).toFixed(1)} ms (median); CPU µs per frame ${show(cpu)} (helper threads: ${show(helpers)}); ${cores} cores at this CPU per frame carry at most ${sessionsAt(total)} sessions; resident memory per session ${(median(runs[chain].map((run) => run.residentPerSession)) / 1024).toFixed(1)} KB`,
      );
    }
    const ratio = (a: Chain, b: Chain) =>
      ((totals.get(a) ?? Number.NaN) / (totals.get(b) ?? Number.NaN)).toFixed(2);
    console.log(
      `  => ${level} sessions, CPU per frame: system / floor ${ratio("system", "floor")}x${engineFloor ? `; floor+engine / floor ${ratio("floor+engine", "floor")}x; system / floor+engine ${ratio("system", "floor+engine")}x` : ""}`,
    );
  }
} finally {
  await engineFloor?.stop();
  await floor?.stop();
  await system.stop();
}
