/**
 * The UI-PRMD recordings kept as test fixtures (test/fixtures/posedata/uiprmd, gzipped copies of
 * ../shared/posedata/uiprmd; public domain, Vakanski et al., Data 2018, 3(1):2) and helpers to
 * run a MoveSpec over them.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import {
  type CompiledSpec,
  createEngine,
  type DetectionEvent,
  load,
} from "@movement-detection/movespec";

const here = dirname(fileURLToPath(import.meta.url));
export const FIXTURES = join(here, "..", "..", "fixtures", "posedata", "uiprmd");
export const EXAMPLES = join(here, "..", "..", "..", "examples", "movespecs");

export interface Manifest {
  sequence_id: string;
  exercise: string;
  expected_repetitions: number;
  rep_segments_frames: [number, number][];
  rep_segments_seconds: [number, number][];
}

type Frame = { seq: number; t: number; keypoints: number[][] };
const cache = new Map<string, readonly Frame[]>();

/** The frames of a recording (parsed once per process; callers must not modify them). */
export function readFrames(id: string): Frame[] {
  let frames = cache.get(id);
  if (!frames) {
    const text = gunzipSync(readFileSync(join(FIXTURES, `${id}.jsonl.gz`))).toString("utf8");
    frames = text
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as Frame);
    cache.set(id, frames);
  }
  return frames as Frame[];
}

export function readManifest(id: string): Manifest {
  return JSON.parse(readFileSync(join(FIXTURES, `${id}.manifest.json`), "utf8"));
}

export function loadExample(name: string): CompiledSpec {
  const result = load(readFileSync(join(EXAMPLES, `${name}.yaml`), "utf8"));
  if (!result.spec) throw new Error(`${name}: ${JSON.stringify(result.errors)}`);
  return result.spec;
}

export function runFrames(spec: CompiledSpec, frames: unknown[]): DetectionEvent[] {
  const engine = createEngine(spec);
  const { events, rejected } = engine.pushMany(frames);
  if (rejected.length > 0)
    throw new Error(`rejected frames: ${JSON.stringify(rejected.slice(0, 3))}`);
  return [...events, ...engine.finish().events];
}

export interface BoundaryCheck {
  count: number;
  /** One line per counted repetition that does not sit inside its true segment. */
  problems: string[];
}

/**
 * Checks that the i-th counted repetition started inside the i-th true segment and was
 * reported (the frame of its rep.completed event) inside that same segment.
 */
export function checkBoundaries(events: DetectionEvent[], manifest: Manifest): BoundaryCheck {
  const reps = events.filter((e) => e.type === "rep.completed");
  const problems: string[] = [];
  reps.forEach((rep, i) => {
    const seg = manifest.rep_segments_frames[i];
    const secs = manifest.rep_segments_seconds[i];
    if (!seg) {
      problems.push(`rep ${i + 1} has no true segment`);
      return;
    }
    // Seconds in the manifest are rounded to 1 ms.
    if (rep.start_t < secs[0] - 0.002 || rep.start_t > secs[1] + 0.002) {
      problems.push(`rep ${i + 1} started at ${rep.start_t} s, outside [${secs[0]}, ${secs[1]}]`);
    }
    if (rep.seq < seg[0] || rep.seq > seg[1])
      problems.push(`rep ${i + 1} reported at frame ${rep.seq}, outside [${seg[0]}, ${seg[1]}]`);
  });
  return { count: reps.length, problems };
}

/** Which reference MoveSpec counts which UI-PRMD movement. */
export const MOVEMENT_SPECS: Record<string, string> = {
  m01: "squat",
  m04: "lunge",
  m05: "sit-to-stand",
  m07: "shoulder-abduction",
  m10: "shoulder-abduction",
};
