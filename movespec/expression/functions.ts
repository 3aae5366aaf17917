/**
 * The functions a MoveSpec expression may call, with their argument kinds and the range of
 * values they can produce (used to warn about thresholds that can never be reached).
 */

export type ArgKind = "landmark" | "value" | "seconds";

export interface FunctionInfo {
  /** Argument kinds in order; `variadicValues` functions take 1..8 values instead. */
  readonly args: readonly ArgKind[];
  readonly variadicValues?: boolean;
  /**
   * The values must be signal names, and the function is computed on a frame even when some of
   * them are not (their landmarks hidden): it reads only those computed on the frame.
   */
  readonly visibleSignals?: boolean;
  /** Reads landmarks (geometry): allowed only in signal definitions. */
  readonly geometry?: boolean;
  /** Keeps state between frames: allowed only in signal definitions. */
  readonly stateful?: boolean;
  /** Divides by the body scale. */
  readonly scaled?: boolean;
  /** Fixed output range, when the function has one. */
  readonly range?: readonly [number, number];
  readonly summary: string;
}

const L = "landmark" as const;
const V = "value" as const;

export const FUNCTIONS: Readonly<Record<string, FunctionInfo>> = {
  angle: {
    args: [L, L, L],
    geometry: true,
    range: [0, 180],
    summary: "joint angle at the middle landmark, degrees (3D when every point has z)",
  },
  angle2d: {
    args: [L, L, L],
    geometry: true,
    range: [0, 180],
    summary: "joint angle at the middle landmark in the image plane, degrees",
  },
  angle_to_vertical: {
    args: [L, L],
    geometry: true,
    range: [0, 180],
    summary:
      "angle between the segment from the first to the second landmark and straight down, degrees (0 when the second hangs below the first, 90 level, 180 straight above)",
  },
  angle_to_horizontal: {
    args: [L, L],
    geometry: true,
    range: [-90, 90],
    summary:
      "elevation of the second landmark above the first, degrees (-90 straight below .. 90 straight above)",
  },
  distance: {
    args: [L, L],
    geometry: true,
    scaled: true,
    range: [0, Number.POSITIVE_INFINITY],
    summary: "distance between two landmarks in the image plane, in body scales",
  },
  dx: {
    args: [L, L],
    geometry: true,
    scaled: true,
    summary:
      "horizontal offset from the first to the second landmark (image right positive), in body scales",
  },
  dy: {
    args: [L, L],
    geometry: true,
    scaled: true,
    summary:
      "vertical offset from the first to the second landmark (image down positive), in body scales",
  },
  above: {
    args: [L, L],
    geometry: true,
    scaled: true,
    summary: "how far the first landmark is above the second, in body scales",
  },
  visibility: {
    args: [L],
    geometry: true,
    range: [0, 1],
    summary: "visibility of a landmark, 0..1 (1 when frames carry none)",
  },
  velocity: {
    args: [V],
    stateful: true,
    summary: "rate of change of a value, per second",
  },
  peak: {
    args: [V, "seconds"],
    stateful: true,
    summary:
      "recent maximum of a value: rises at once, decays towards the value with the given time constant",
  },
  trough: {
    args: [V, "seconds"],
    stateful: true,
    summary:
      "recent minimum of a value: falls at once, rises towards the value with the given time constant",
  },
  abs: { args: [V], summary: "absolute value" },
  min: { args: [], variadicValues: true, summary: "smallest of the values" },
  max: { args: [], variadicValues: true, summary: "largest of the values" },
  mean: { args: [], variadicValues: true, summary: "mean of the values" },
  mean_visible: {
    args: [],
    variadicValues: true,
    visibleSignals: true,
    summary:
      "mean of the signals computed on this frame (their landmarks visible): both sides when the camera sees both, the visible one when it sees one",
  },
  min_visible: {
    args: [],
    variadicValues: true,
    visibleSignals: true,
    summary:
      "smallest of the signals computed on this frame: the lower side when the camera sees both, the visible one when it sees one",
  },
  max_visible: {
    args: [],
    variadicValues: true,
    visibleSignals: true,
    summary:
      "largest of the signals computed on this frame: the higher side when the camera sees both, the visible one when it sees one",
  },
};
