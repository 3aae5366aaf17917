/**
 * MoveSpec engine and loader benchmark (run on demand, never in `npm test`):
 *
 *   node --import tsx bench/movespec/engine.bench.ts
 *
 * Engine: a typical MoveSpec (6 signals, One Euro on each, 3 phases, 2 form rules) over 100,000
 * real frames (UI-PRMD deep squats, looped), pushed one by one on one core, and the same MoveSpec
 * counting with adaptive phases (a 5 s window of the knee angle). Baseline in the same run: the
 * smallest useful MoveSpec (1 signal, no smoothing, 2 phases), so the ratios show what the typical
 * and the adaptive spec cost over frame checking and decoding.
 * Allocation: the bytes the engine allocates per frame (V8's sampling heap profiler, garbage
 * included), pushed one by one and as the service gets them (one binary frame per message,
 * `pushPacked`): whatever it allocates the service's garbage collector pays for on every frame.
 * Loader: load() of the typical MoveSpec and of every reference MoveSpec; baseline: the `yaml`
 * package's parseDocument alone on the same text.
 * Every figure is the median of several runs after a warm-up.
 */
import { readdirSync, readFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import {
  type CompiledSpec,
  createEngine,
  load,
  type PackedFrames,
} from "@movement-detection/movespec";
import { encodeBinaryFrames } from "@movement-detection/sdk";
import { parseDocument } from "yaml";
import {
  isBinaryFramesProblem,
  readBinaryFrames,
} from "../../services/detection/stream/binary-frames.js";
import { median } from "../../test/support/statistics.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");

export const TYPICAL = `movespec: 1
name: Benchmark squat
smoothing: { one_euro: { min_cutoff: 1.5, beta: 0.02, d_cutoff: 1.0 } }
signals:
  left_knee: angle(left_hip, left_knee, left_ankle)
  right_knee: angle(right_hip, right_knee, right_ankle)
  left_hip: angle(left_shoulder, left_hip, left_knee)
  right_hip: angle(right_shoulder, right_hip, right_knee)
  trunk_lean: angle_to_vertical(mid_shoulder, mid_hip)
  hip_height: above(mid_hip, mid_ankle)
phases:
  up: { enter: left_knee > 150, exit: left_knee < 140 }
  half: { enter: left_knee < 130 and left_knee > 105, exit: left_knee > 135 or left_knee < 100 }
  down: { enter: left_knee < 95, exit: left_knee > 102 }
repetition:
  cycle: [up, half, down, half, up]
  within: [0.5s, 8s]
  start: { phase: up, for: 0.2s }
form:
  - { id: chest_up, when: trunk_lean > 60, during: [down], message: Keep your chest up. }
  - { id: even_knees, when: left_knee - right_knee > 25, during: rep, message: Bend both knees evenly. }
metrics: [left_knee, right_knee, hip_height]
`;

/**
 * The typical MoveSpec counted with adaptive phases: the same 6 signals and rules, the phases on
 * the position of the knee angle within its recent range (a 5 s window at 30 fps: 150 samples).
 */
const ADAPTIVE = TYPICAL.replace(
  "  hip_height: above(mid_hip, mid_ankle)\n",
  "  hip_height: above(mid_hip, mid_ankle)\n  depth: { adaptive: left_knee, rest: high, window: 5s, min_range: 20 }\n",
)
  .replace(
    "up: { enter: left_knee > 150, exit: left_knee < 140 }",
    "up: { enter: depth < 0.3, exit: depth > 0.4 }",
  )
  .replace(
    "half: { enter: left_knee < 130 and left_knee > 105, exit: left_knee > 135 or left_knee < 100 }",
    "half: { enter: depth > 0.4 and depth < 0.6, exit: depth < 0.35 or depth > 0.65, min_dwell: 0s }",
  )
  .replace(
    "down: { enter: left_knee < 95, exit: left_knee > 102 }",
    "down: { enter: depth > 0.6, exit: depth < 0.5 }",
  )
  .replace("name: Benchmark squat", "name: Benchmark squat, adaptive");

const MINIMAL = `movespec: 1
name: Minimal
smoothing: none
signals:
  knee: angle(left_hip, left_knee, left_ankle)
phases:
  up: { enter: knee > 150, exit: knee < 140 }
  down: { enter: knee < 95, exit: knee > 102 }
repetition:
  cycle: [up, down, up]
`;

function compile(yaml: string): CompiledSpec {
  const r = load(yaml);
  if (!r.spec) throw new Error(JSON.stringify(r.errors));
  return r.spec;
}

function frames(count: number): unknown[] {
  const text = gunzipSync(
    readFileSync(join(root, "test", "fixtures", "posedata", "uiprmd", "m01_s01.jsonl.gz")),
  ).toString("utf8");
  const source = text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { keypoints: number[][] });
  return Array.from({ length: count }, (_, i) => ({
    seq: i,
    t: i / 30,
    keypoints: source[i % source.length].keypoints,
  }));
}

/** One run of `spec` over `input`, pushed one by one: frames per second and repetitions. */
function engineRun(spec: CompiledSpec, input: unknown[]): { fps: number; reps: number } {
  const engine = createEngine(spec);
  let reps = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < input.length; i++) {
    const out = engine.push(input[i]);
    if (out.ok && out.events.length > 0)
      for (const e of out.events) if (e.type === "rep.completed") reps++;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { fps: input.length / seconds, reps };
}

/**
 * Every spec once per round, `rounds` rounds after a warm-up round, so that a busy machine slows
 * them alike: the median per spec, and the median over rounds of each spec's time per frame
 * relative to the first one's in the same round.
 */
function engineFps(
  specs: CompiledSpec[],
  input: unknown[],
  rounds: number,
): { fps: number; reps: number; ratio: number }[] {
  const fps: number[][] = specs.map(() => []);
  const reps = specs.map(() => 0);
  for (let r = 0; r < rounds + 1; r++) {
    specs.forEach((spec, k) => {
      const run = engineRun(spec, input);
      reps[k] = run.reps;
      if (r > 0) fps[k].push(run.fps); // round 0 warms up the JIT
    });
  }
  return specs.map((_, k) => ({
    fps: median(fps[k]),
    reps: reps[k],
    ratio: median(fps[k].map((f, r) => fps[0][r] / f)),
  }));
}

function timeMs(fn: () => void, runs: number): number {
  for (let i = 0; i < 20; i++) fn();
  const results: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    fn();
    results.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(results);
}

const N = 100_000;
const input = frames(N);
const [minimal, typical, adaptive] = engineFps(
  [compile(MINIMAL), compile(TYPICAL), compile(ADAPTIVE)],
  input,
  7,
);
console.log(
  `engine, ${N} frames pushed one by one, median of 7 interleaved rounds (Node ${process.version}, one core):`,
);
console.log(
  `  typical MoveSpec (6 signals with One Euro, 3 phases, 2 form rules): ${Math.round(typical.fps).toLocaleString("en")} frames/s (${(1e6 / typical.fps).toFixed(2)} us/frame, ${typical.reps} reps counted)`,
);
console.log(
  `  the same with adaptive phases (5 s window):                         ${Math.round(adaptive.fps).toLocaleString("en")} frames/s (${(1e6 / adaptive.fps).toFixed(2)} us/frame, ${adaptive.reps} reps counted)`,
);
console.log(
  `  baseline (1 signal, no smoothing, 2 phases):                        ${Math.round(minimal.fps).toLocaleString("en")} frames/s`,
);
console.log(
  `  time per frame against the baseline in the same round (median): typical ${typical.ratio.toFixed(2)}x, adaptive ${adaptive.ratio.toFixed(2)}x (adaptive / typical ${(adaptive.ratio / typical.ratio).toFixed(2)}x)`,
);

/**
 * One binary message per frame, as a live client sends them (the SDK's encoder), read by
 * detection's own reader into what the engine is given.
 */
function packedMessages(input: unknown[]): PackedFrames[] {
  return input.map((frame) => {
    const bytes = encodeBinaryFrames(
      [frame as { seq: number; t: number; keypoints: number[][] }],
      33,
    );
    if (!bytes) throw new Error("frame not encodable");
    const read = readBinaryFrames(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      33,
    );
    if (isBinaryFramesProblem(read)) throw new Error(read.message);
    return read;
  });
}

/** Bytes allocated per frame while `run` pushes `frames` frames (after a warm-up run). */
async function bytesPerFrame(run: () => void, frames: number): Promise<number> {
  run();
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 64,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  run();
  const { profile } = await session.post("HeapProfiler.stopSampling");
  session.disconnect();
  let bytes = 0;
  const visit = (node: typeof profile.head): void => {
    bytes += node.selfSize;
    for (const child of node.children) visit(child);
  };
  visit(profile.head);
  return bytes / frames;
}

const ALLOCATION_FRAMES = 30_000;
const allocationInput = input.slice(0, ALLOCATION_FRAMES);
const messages = packedMessages(allocationInput);
console.log(
  `\nengine allocation, bytes per frame over ${ALLOCATION_FRAMES.toLocaleString("en")} frames (sampled every 64 bytes, garbage included):`,
);
for (const [name, yaml] of [
  ["baseline", MINIMAL],
  ["typical", TYPICAL],
  ["adaptive", ADAPTIVE],
] as const) {
  const spec = compile(yaml);
  const onePerPush = await bytesPerFrame(() => {
    const engine = createEngine(spec);
    for (let i = 0; i < allocationInput.length; i++) engine.push(allocationInput[i]);
  }, ALLOCATION_FRAMES);
  const onePerMessage = await bytesPerFrame(() => {
    const engine = createEngine(spec);
    for (let i = 0; i < messages.length; i++) engine.pushPacked(messages[i] as PackedFrames);
  }, ALLOCATION_FRAMES);
  console.log(
    `  ${name.padEnd(9)} push: ${onePerPush.toFixed(0).padStart(4)} B, pushPacked (one frame per message): ${onePerMessage.toFixed(0).padStart(4)} B`,
  );
}

const loadTypical = timeMs(() => load(TYPICAL), 200);
const parseTypical = timeMs(() => parseDocument(TYPICAL), 200);
console.log("\nload() = parse + validate + compile, median of 200 runs:");
console.log(
  `  typical MoveSpec: ${loadTypical.toFixed(3)} ms (yaml parseDocument alone: ${parseTypical.toFixed(3)} ms, ratio ${(loadTypical / parseTypical).toFixed(2)}x)`,
);
const examples = join(root, "examples", "movespecs");
for (const f of readdirSync(examples)
  .filter((x) => x.endsWith(".yaml"))
  .sort()) {
  const text = readFileSync(join(examples, f), "utf8");
  const ms = timeMs(() => load(text), 100);
  console.log(`  ${f.padEnd(24)} ${ms.toFixed(3)} ms`);
}
