import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Public-domain UI-PRMD recordings the repository ships as test fixtures. */
export const RECORDINGS_DIR = join(ROOT, "test", "fixtures", "posedata", "uiprmd");
const EXAMPLES_DIR = join(ROOT, "examples", "movespecs");

export interface SampleRecording {
  readonly id: string;
  readonly exercise: string;
  readonly expected_repetitions: number;
  readonly frames: number;
  readonly url: string;
}

export interface ExampleMoveSpec {
  readonly name: string;
  readonly yaml_source: string;
}

export interface StudioSamples {
  readonly recordings: readonly SampleRecording[];
  readonly examples: readonly ExampleMoveSpec[];
}

const RECORDING_ID = /^[a-z0-9_]{1,40}$/;

/** What the Studio offers to start from: the repository's example MoveSpecs and recordings. */
export function readStudioSamples(): StudioSamples {
  const index = JSON.parse(readFileSync(join(RECORDINGS_DIR, "index.json"), "utf8")) as {
    sequences: {
      sequence_id: string;
      exercise: string;
      expected_repetitions: number;
      n_frames: number;
    }[];
  };
  const recordings = index.sequences
    .filter((s) => RECORDING_ID.test(s.sequence_id))
    .map((s) => ({
      id: s.sequence_id,
      exercise: s.exercise,
      expected_repetitions: s.expected_repetitions,
      frames: s.n_frames,
      url: `/studio/recordings/${s.sequence_id}.jsonl.gz`,
    }));
  const examples = readdirSync(EXAMPLES_DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) => ({
      name: f.replace(/\.yaml$/, ""),
      yaml_source: readFileSync(join(EXAMPLES_DIR, f), "utf8"),
    }));
  return { recordings, examples };
}
