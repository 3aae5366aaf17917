/**
 * `movespec extract`'s speed and the counts of its recordings, on the clips of real people in
 * ../shared/video (run on demand, never in `npm test`; SHARED_VIDEO_DIR for another folder):
 *
 *   node --import tsx bench/video/extract.bench.ts [--only push-up_long.mp4]
 *
 * For each clip: frames read against the frames in the file (index.json), wall time with the
 * browser's start and the model's load, frames per second, and the reference MoveSpec's count
 * of the recording against the label. The machine's load average is printed with the figures:
 * the pose model takes all of a core, and a busy machine halves the rate.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createEngine, load } from "@movement-detection/movespec";
import { extractVideo } from "@movement-detection/movespec/video";
import type { PoseFrame } from "@movement-detection/sdk";
import { POSE_MODELS, type PoseModelName } from "@movement-detection/sdk/pose-models";
import { SHARED_VIDEO_DIR, sharedVideos } from "../../test/support/shared-video.js";

const ROOT = join(import.meta.dirname, "..", "..");
const SPEC_OF: Record<string, string> = { squat: "squat", push_up: "push-up" };

const { values } = parseArgs({
  options: { only: { type: "string" }, model: { type: "string" } },
});
const model = values.model as PoseModelName | undefined;
if (model && !POSE_MODELS.includes(model)) throw new Error(`--model: one of ${POSE_MODELS}`);
const clips = sharedVideos();
if (!clips) {
  console.log(`no clips at ${SHARED_VIDEO_DIR} (a clone has no ../shared): nothing to measure`);
  process.exit(0);
}
console.log(
  `load average before: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
);
console.log("clip                 frames (file)  seconds  frames/s  count (label)  spec");
for (const clip of clips.values()) {
  if (values.only && clip.file !== values.only) continue;
  const frames: PoseFrame[] = [];
  const started = performance.now();
  const info = await extractVideo(clip.path, {
    model,
    onFrames: (batch) => void frames.push(...batch),
  });
  const seconds = (performance.now() - started) / 1000;
  const name = SPEC_OF[clip.exercise];
  const spec = load(readFileSync(join(ROOT, "examples", "movespecs", `${name}.yaml`), "utf8")).spec;
  if (!spec) throw new Error(`${name}.yaml does not load`);
  const engine = createEngine(spec, { topology: "coco-17", aspectRatio: info.width / info.height });
  engine.pushMany(frames);
  const { summary } = engine.finish();
  console.log(
    [
      clip.file.padEnd(20),
      `${frames.length} (${clip.frames})`.padStart(14),
      seconds.toFixed(1).padStart(8),
      (frames.length / seconds).toFixed(1).padStart(9),
      `${summary.count} (${clip.expected_repetitions})`.padStart(14),
      ` ${name}.yaml, ${info.model} on ${info.backend}`,
    ].join(" "),
  );
}
console.log(
  `load average after: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
);
