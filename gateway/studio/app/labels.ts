/**
 * Labelling a recording: the repetitions a person marks on its timeline (segments in seconds)
 * and the count they expect, and the manifest `movespec fit` reads beside the recording
 * (movespec/cli/labelled-recordings.ts: `expected_repetitions`, `rep_segments_seconds`, ...).
 * No DOM: the labelling section shows and changes these values through the store.
 */
import { type LabelledRecording, load } from "@movement-detection/movespec";
import type { RecordedFrame, Recording } from "./recording.js";
import { topologyOf } from "./recording.js";
import { nearestFrame } from "./time.js";

export type Segment = readonly [start: number, end: number];

export interface Labels {
  /** Which recording they label (labelKey): labels of another recording are never shown. */
  readonly key: string;
  /** Marked repetitions, in seconds, sorted by start, never overlapping. */
  readonly segments: readonly Segment[];
  /** The count typed; undefined: the number of segments. */
  readonly expected?: number;
}

/** A recording's identity for its labels: its name and its frames' number and span. */
export function labelKey(recording: Recording): string {
  const { frames } = recording;
  return `${recording.name}|${frames.length}|${frames[0]?.t ?? 0}|${frames.at(-1)?.t ?? 0}`;
}

/**
 * Adds the repetition [a, b] (either order). A segment that overlaps others replaces them: a
 * repetition marked again over old marks is the newer judgement. Shorter than `minSeconds`
 * (a click, not a drag): nothing changes.
 */
export function addSegment(labels: Labels, a: number, b: number, minSeconds = 0): Labels {
  const start = Math.min(a, b);
  const end = Math.max(a, b);
  if (!Number.isFinite(start) || !Number.isFinite(end) || end - start <= minSeconds) return labels;
  const kept = labels.segments.filter(([s, e]) => e < start || s > end);
  const segments = [...kept, [start, end] as const].sort((x, y) => x[0] - y[0]);
  return { ...labels, segments };
}

export function removeSegment(labels: Labels, index: number): Labels {
  if (index < 0 || index >= labels.segments.length) return labels;
  return { ...labels, segments: labels.segments.filter((_, i) => i !== index) };
}

/** The count typed (a whole number from 0), or undefined for blank: the segments' number. */
export function withExpected(labels: Labels, typed: string): Labels | string {
  const text = typed.trim();
  if (text === "") return { ...labels, expected: undefined };
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) return "the expected count is a whole number from 0";
  return { ...labels, expected: n };
}

export function expectedCount(labels: Labels): number {
  return labels.expected ?? labels.segments.length;
}

/** `squat.mp4`, `squat.jsonl.gz` -> `squat`: the name the recording and its manifest share. */
export function fileStem(name: string): string {
  const stem = name
    .replace(/\.(jsonl(\.gz)?|gz|mp4|m4v|mov|webm|mkv|ogv)$/i, "")
    .replace(/[^\w.-]+/g, "_");
  return stem === "" ? "recording" : stem;
}

/** The recording as the CLI reads it: one pose-frame.v1 object a line (`{seq, t, keypoints}`). */
export function recordingJsonl(frames: readonly RecordedFrame[]): string {
  return frames
    .map((f, seq) => `${JSON.stringify({ seq, t: f.t, keypoints: f.keypoints })}\n`)
    .join("");
}

export interface Manifest {
  readonly clip_id: string;
  readonly expected_repetitions: number;
  readonly rep_segments_seconds: readonly Segment[];
  /** The same segments as frame indices of the recording (its first and last frame). */
  readonly rep_segments_frames: readonly Segment[];
  readonly topology: "blazepose-33" | "coco-17";
  /** Width / height of the video the keypoints are normalised to, when known. */
  readonly aspect_ratio?: number;
}

/** The manifest `movespec fit` reads beside `<stem>.jsonl` as `<stem>.manifest.json`. */
export function manifestOf(recording: Recording, labels: Labels): Manifest {
  const times = recording.frames.map((f) => f.t);
  const round = (t: number) => Math.round(t * 1000) / 1000;
  return {
    clip_id: fileStem(recording.name),
    expected_repetitions: expectedCount(labels),
    rep_segments_seconds: labels.segments.map(([s, e]) => [round(s), round(e)] as const),
    rep_segments_frames: labels.segments.map(
      ([s, e]) => [nearestFrame(times, s), nearestFrame(times, e)] as const,
    ),
    topology: topologyOf(recording.frames),
    ...(recording.aspectRatio ? { aspect_ratio: round(recording.aspectRatio) } : {}),
  };
}

/** What the labels say in a line, with a mismatch between the count typed and the marks. */
export function labelsText(labels: Labels): string {
  const n = labels.segments.length;
  const marked = `${n} ${n === 1 ? "repetition" : "repetitions"} marked`;
  if (labels.expected === undefined || labels.expected === n) return `${marked}.`;
  return `${marked}; the manifest says ${labels.expected} (the count typed).`;
}

/** A recording the page has labels for: what a fit in the page runs on. */
export interface Labelled {
  readonly recording: Recording;
  readonly labels: Labels;
}

/** The labels of `recording` among those of the page (none yet: no marks). */
export function labelsIn(list: readonly Labelled[], recording: Recording): Labels {
  const key = labelKey(recording);
  return list.find((l) => l.labels.key === key)?.labels ?? { key, segments: [] };
}

/** `list` with `labels` as its recording's: replaced, added, or dropped when they say nothing. */
export function withLabels(
  list: readonly Labelled[],
  recording: Recording,
  labels: Labels,
): readonly Labelled[] {
  const others = list.filter((l) => l.labels.key !== labels.key);
  const empty = labels.segments.length === 0 && labels.expected === undefined;
  return empty ? others : [...others, { recording, labels }];
}

/**
 * The page's labelled recordings as `fitMoveSpec` takes them, each by its file's name (made
 * unique: `squat`, `squat#2`).
 */
export function fitRecordings(list: readonly Labelled[]): LabelledRecording[] {
  const seen = new Set<string>();
  return list.map(({ recording, labels }) => {
    const stem = fileStem(recording.name);
    let id = stem;
    for (let n = 2; seen.has(id); n++) id = `${stem}#${n}`;
    seen.add(id);
    return {
      id,
      frames: recording.frames,
      expected: expectedCount(labels),
      segments: labels.segments.length > 0 ? labels.segments : undefined,
      topology: topologyOf(recording.frames),
      aspectRatio: recording.aspectRatio,
    };
  });
}

/** Why a fit in the page cannot run on `source` with `list`, or undefined when it can. */
export function fitProblem(source: string, list: readonly Labelled[]): string | undefined {
  const loaded = load(source);
  if (!loaded.spec) return "Fix the MoveSpec's errors first (listed under Problems).";
  if (loaded.spec.fit.length === 0)
    return "The MoveSpec has no fit: block, so no number is free to choose: name the numbers to fit and their ranges in one (docs/movespec.md, Fit).";
  if (list.length === 0)
    return "No labelled recording yet: mark the repetitions of a recording (or type its count) first.";
  return undefined;
}
