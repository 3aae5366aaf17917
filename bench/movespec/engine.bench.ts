/**
 * MoveSpec engine and loader benchmark (run on demand, never in `npm test`):
 *
 *   node --import tsx bench/movespec/engine.bench.ts
 *
 * Engine: a typical MoveSpec (6 signals, One Euro on each, 3 phases, 2 form rules) over 100,000
 * real frames (UI-PRMD deep squats, looped), pushed one by one on one core. Baseline in the same
 * run: the smallest useful MoveSpec (1 signal, no smoothing, 2 phases), so the ratio shows what
 * the typical spec costs over frame checking and decoding.
 * Loader: load() of the typical MoveSpec and of every reference MoveSpec; baseline: the `yaml`
 * package's parseDocument alone on the same text.
 * Every figure is the median of several runs after a warm-up.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { parseDocument } from "yaml";
import { type CompiledSpec, createEngine, load } from "../../movespec/index.js";
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

function engineFps(
  spec: CompiledSpec,
  input: unknown[],
  runs: number,
): { fps: number; reps: number } {
  const results: number[] = [];
  let reps = 0;
  for (let r = 0; r < runs + 1; r++) {
    const engine = createEngine(spec);
    const start = process.hrtime.bigint();
    for (let i = 0; i < input.length; i++) {
      const out = engine.push(input[i]);
      if (out.ok && out.events.length > 0)
        for (const e of out.events) if (e.type === "rep.completed") reps++;
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    if (r > 0) results.push(input.length / seconds); // run 0 warms up the JIT
  }
  return { fps: median(results), reps: reps / (runs + 1) };
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
const typical = engineFps(compile(TYPICAL), input, 7);
const minimal = engineFps(compile(MINIMAL), input, 7);
console.log(
  `engine, ${N} frames pushed one by one, median of 7 runs (Node ${process.version}, one core):`,
);
console.log(
  `  typical MoveSpec (6 signals with One Euro, 3 phases, 2 form rules): ${Math.round(typical.fps).toLocaleString("en")} frames/s (${(1e6 / typical.fps).toFixed(2)} us/frame, ${typical.reps} reps counted)`,
);
console.log(
  `  baseline (1 signal, no smoothing, 2 phases):                        ${Math.round(minimal.fps).toLocaleString("en")} frames/s`,
);
console.log(
  `  ratio typical / baseline time per frame: ${(minimal.fps / typical.fps).toFixed(2)}x`,
);

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
