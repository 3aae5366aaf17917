/**
 * A loaded MoveSpec: plain, immutable data with every reference resolved. `load()` produces
 * it; `createEngine()` turns it into closures for one topology.
 */
import type { Expr } from "./expression/ast.js";
import type { SidesMode } from "./sides.js";
import type { TopologyName } from "./topology.js";

export type CameraView = "front" | "side" | "any";
/**
 * What distances are divided by: a body length (torso, shoulder or hip width), or `height`, the
 * vertical extent of every keypoint of the frame (the person's bounding box).
 */
export type BodyScale = "torso" | "shoulders" | "hips" | "height";
export type FormSeverity = "info" | "warning" | "error";

export type Smoothing =
  | { kind: "none" }
  | { kind: "one_euro"; minCutoff: number; beta: number; dCutoff: number }
  | { kind: "ema"; timeConstant: number };

/**
 * An adaptive signal: the position of its source signal inside the range the source recently
 * took (percentiles over a time window), 0 at the rest end and 1 at the far end.
 */
export interface AdaptiveDef {
  /** The end of the range a repetition starts from: `low` or `high` values of the source. */
  readonly rest: "low" | "high";
  /** Seconds of history the range is taken from. */
  readonly window: number;
  /** The percentiles (0..100) that make the low and high ends of the range. */
  readonly percentiles: readonly [number, number];
  /** In the source's units: a narrower range is noise or standing still, and moves nothing. */
  readonly minRange: number;
}

/**
 * What a signal measures, worked out from the functions it uses: degrees (angles), body scales
 * (distances), a fraction 0..1 (visibility), a ratio of like quantities, or a rate of change per
 * second of degrees or body scales. Undefined when the expression mixes units.
 */
export type SignalUnit = "deg" | "deg/s" | "scale" | "scale/s" | "fraction" | "ratio";

export interface SignalDef {
  readonly name: string;
  /** For an adaptive signal: a reference to its source signal. */
  readonly expr: Expr;
  /** Source text of the expression, for messages and plots. */
  readonly text: string;
  readonly smoothing: Smoothing;
  /** Depends on the side evaluated (uses `knee`, not `left_knee`). */
  readonly sided: boolean;
  /** Possible values, from the functions used ([-inf, inf] when unknown). */
  readonly range: readonly [number, number];
  /** Present when the signal is adaptive (its `expr` is then the source signal). */
  readonly adaptive?: AdaptiveDef;
  readonly unit?: SignalUnit;
}

export interface PhaseDef {
  readonly name: string;
  readonly enter: Expr;
  /** The phase is kept while this holds (the negation of `exit`). */
  readonly stay: Expr;
  readonly minDwell: number;
  /** Signals named by the conditions, reported in events. */
  readonly signals: readonly string[];
}

export interface RepetitionDef {
  /** Phase indices, first = the start/rest phase. */
  readonly cycle: readonly number[];
  readonly target: number;
  readonly minDuration: number;
  readonly maxDuration: number;
  readonly start: { readonly phase: number; readonly for: number; readonly when?: Expr };
  readonly partial: {
    readonly enabled: boolean;
    readonly minProgress: number;
    /** How far a repetition got: the signal and the values meaning 0 and 1. */
    readonly progress?: { readonly signal: string; readonly from: number; readonly to: number };
  };
}

export interface HoldDef {
  readonly phase: number;
  readonly target: number;
  readonly grace: number;
  readonly progressEvery: number;
}

export interface FormRuleDef {
  readonly id: string;
  readonly when: Expr;
  readonly during: {
    readonly kind: "rep" | "always" | "phases";
    readonly phases: readonly number[];
  };
  readonly severity: FormSeverity;
  readonly message: string;
  readonly for: number;
  readonly cooldown: number;
  readonly voidsRep: boolean;
  readonly penalty: number;
  readonly signals: readonly string[];
}

export interface TrackingDef {
  /** Landmark names as written (`knee`, `left_hip`, `mid_shoulder`). */
  readonly landmarks: readonly string[];
  readonly minVisibility: number;
  readonly lostAfter: number;
  readonly onLost: "pause" | "reset";
  readonly resetAfter: number;
}

export interface ReferenceRecording {
  readonly recording: string;
  readonly expectedCount?: number;
  readonly topology?: TopologyName;
}

/**
 * A number of the MoveSpec's source that `fit:` names: where it is written and what it is now.
 * The engine never reads it; `movespec fit` rewrites the source at these offsets.
 */
export interface FitTarget {
  /** As written in the fit block: `signals.depth.min_range`, `phases.up.enter#2`. */
  readonly path: string;
  /** Its value now, in the parameter's units (seconds for a duration). */
  readonly value: number;
  /** Where the number is written in the source, [start, end). */
  readonly start: number;
  readonly end: number;
  /** How the number is written: a bare number, a duration's number (with `unit` after it) or a number in an expression. */
  readonly form: "number" | "duration" | "expression";
  /** Seconds per unit of a duration as written (0.001 for `ms`); 1 otherwise. */
  readonly unitSeconds: number;
}

/** A free number of `fit:`: its range, its grid step, and the numbers it moves. */
export interface FitParameter {
  readonly name: string;
  readonly range: readonly [number, number];
  readonly step: number;
  /** The first is the parameter's value; the others move by as much (keeping their offsets). */
  readonly targets: readonly FitTarget[];
}

export interface CompiledSpec {
  readonly movespec: 1;
  readonly name: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly camera: { readonly view: CameraView; readonly aspectRatio: number };
  readonly topologies: readonly TopologyName[];
  readonly sides: SidesMode;
  readonly scale: BodyScale;
  readonly tracking: TrackingDef;
  /** In evaluation order: every signal comes after the signals it uses. */
  readonly signals: readonly SignalDef[];
  /**
   * Every signal declared, those nothing reads too (SIGNAL_UNUSED), in evaluation order: an
   * engine computes them only when asked (`everySignal`, for `movespec run --stats`).
   */
  readonly declaredSignals?: readonly SignalDef[];
  readonly phases: readonly PhaseDef[];
  readonly repetition?: RepetitionDef;
  readonly hold?: HoldDef;
  readonly form: readonly FormRuleDef[];
  readonly metrics: readonly string[];
  readonly scoring: {
    readonly depth?: {
      readonly signal: string;
      readonly from: number;
      readonly to: number;
      readonly weight: number;
    };
  };
  readonly references: readonly ReferenceRecording[];
  /** The free numbers `movespec fit` may choose (empty without a `fit:` block). */
  readonly fit: readonly FitParameter[];
}
