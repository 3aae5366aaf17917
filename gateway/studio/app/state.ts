import type { CompiledSpec } from "@movement-detection/movespec";
import type { Connection } from "./connection.js";
import type { OpenMoveSpec } from "./draft.js";
import type { Labelled } from "./labels.js";
import type { PlotModel } from "./plot/plot-model.js";
import type { Recording } from "./recording.js";
import type { ReplayOutcome } from "./replay.js";
import { START_OF_TIME, type TimeState } from "./time.js";

export interface Samples {
  recordings: {
    id: string;
    exercise: string;
    expected_repetitions: number;
    frames: number;
    url: string;
  }[];
  examples: { name: string; yaml_source: string }[];
}

/** A run's result, as long as it is the last run's (a new run, failed or not, replaces it). */
export interface RunResult {
  readonly spec: CompiledSpec;
  readonly recording: Recording;
  readonly outcome: ReplayOutcome;
  readonly model: PlotModel;
  /** What ran: "m01_s01 with version 1 of Squat". */
  readonly caption: string;
}

/** The page's whole state (store.ts): each section shows its part and changes it through `set`. */
export interface AppState {
  readonly connection?: Connection;
  readonly samples: Samples;
  /** The open MoveSpec (mutated by the draft model as saves settle; replaced when another opens). */
  readonly open?: OpenMoveSpec;
  /** Bumped whenever `open` changed inside (a save, a version, a release): sections re-show it. */
  readonly openRevision: number;
  /** An operation that must not run twice at once is under way (buttons disabled). */
  readonly busy: boolean;
  readonly run?: RunResult;
  /** Signals chosen for the plot (kept across runs of the same MoveSpec). */
  readonly plotSignals?: readonly string[];
  readonly time: TimeState;
  readonly cameraOn: boolean;
  /** A recording read from a video file in the page: what Run runs until another is chosen. */
  readonly extracted?: Recording;
  /** The recordings labelled in this page (repetitions marked, a count typed): what Fit uses. */
  readonly labelled: readonly Labelled[];
}

/** The recording the timeline and the downloads are of: the last run's, else the video read. */
export function currentRecording(state: AppState): Recording | undefined {
  return state.run?.recording ?? state.extracted;
}

export const INITIAL_STATE: AppState = {
  samples: { recordings: [], examples: [] },
  openRevision: 0,
  busy: false,
  time: START_OF_TIME,
  cameraOn: false,
  labelled: [],
};
