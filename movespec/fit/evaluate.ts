/**
 * Counting a labelled recording with a MoveSpec, as a detection session would: every frame
 * through the engine (`pushMany`), then `finish()`. What `movespec fit` scores and the accuracy
 * benchmark reports.
 */
import type { CompiledSpec } from "../compiled-spec.js";
import { createEngine } from "../engine/engine.js";
import type { TopologyName } from "../topology.js";
import { type ClipScore, matchRepetitions, type Segment } from "./scoring.js";

/** A recording with what a person counted in it. */
export interface LabelledRecording {
  /** Unique among the recordings fitted together (a clip id, a file name). */
  readonly id: string;
  /** Pose frames (pose-frame.v1 objects), in order. */
  readonly frames: readonly unknown[];
  /** Repetitions a person counted: 0 for a recording of another movement (a negative). */
  readonly expected: number;
  /** The true repetitions, [start, end] in seconds, when labelled. */
  readonly segments?: readonly Segment[];
  readonly topology?: TopologyName;
  readonly aspectRatio?: number;
  /**
   * What the folds keep in proportion (an exercise, "negative"): each fold gets its share of
   * every group. Default: one group.
   */
  readonly group?: string;
}

/** How a MoveSpec counted one recording. */
export interface Outcome extends ClipScore {
  /** Times (s) of the `rep.completed` events. */
  readonly repTimes: readonly number[];
  /** Frames the engine refused (malformed, out of order). */
  readonly rejected: number;
  /** Why it could not be counted (a topology the MoveSpec does not run on): a miss. */
  readonly problem?: string;
}

export function countRecording(spec: CompiledSpec, rec: LabelledRecording): Outcome {
  let engine: ReturnType<typeof createEngine>;
  try {
    engine = createEngine(spec, { topology: rec.topology, aspectRatio: rec.aspectRatio });
  } catch (e) {
    return { expected: rec.expected, repTimes: [], rejected: 0, problem: (e as Error).message };
  }
  const { events, rejected } = engine.pushMany(rec.frames as unknown[]);
  const repTimes: number[] = [];
  for (const e of [...events, ...engine.finish().events])
    if (e.type === "rep.completed") repTimes.push(e.t);
  return {
    expected: rec.expected,
    counted: repTimes.length,
    inside: rec.segments ? matchRepetitions(repTimes, rec.segments).inside : undefined,
    repTimes,
    rejected: rejected.length,
  };
}
