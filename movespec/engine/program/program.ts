/**
 * A program is a CompiledSpec turned into closures over typed arrays for one topology: point
 * slots (landmarks and midpoints), signal slots (a signal on a side), and conditions per side.
 * Built once per MoveSpec and topology and shared by its engines (../shared-program.ts), each
 * binding its own arrays. Per frame the closures write typed arrays and allocate no object; V8 may
 * still box a number a closure returns (bench/movespec/engine.bench.ts measures the bytes).
 */
import type { SignalDef, Smoothing } from "../../compiled-spec.js";
import type { Expr } from "../../expression/ast.js";
import type { SideKey } from "../../sides.js";
import type { TopologyName } from "../../topology.js";
import type { Memory } from "./memory.js";

export interface SignalSlot {
  readonly name: string;
  readonly side: SideKey;
  readonly def: SignalDef;
  /** Point slots that must be visible for the slot to be computed. */
  readonly points: readonly number[];
  /** Slots it reads (must be fresh). */
  readonly deps: readonly number[];
  readonly compute: () => number;
  /** How its value is smoothed (../filters.ts), with its state at filterAt. */
  readonly smoothing: Smoothing;
  readonly filterAt: number;
  /** Where an adaptive signal keeps its window in the state array (-1: not adaptive). */
  readonly adaptiveAt: number;
}

export interface Program {
  readonly topology: TopologyName;
  readonly keypointCount: number;
  readonly memory: Memory;
  readonly pointSources: readonly (readonly [number, number])[];
  readonly slots: readonly SignalSlot[];
  readonly slotIndex: ReadonlyMap<string, number>;
  /** Pairs of point slots whose mean distance is the body scale (empty when no signal needs it). */
  readonly scalePoints: readonly (readonly [number, number])[];
  /** The body scale is the vertical extent of the frame's visible keypoints (`scale: height`). */
  readonly scaleByHeight: boolean;
  /** Point slots of the tracking gate, per side. */
  readonly gatePoints: Readonly<Record<SideKey, readonly number[]>>;
  readonly gateNames: Readonly<Record<SideKey, readonly string[]>>;
  /** Without a side: pairs of point slots of which at least one must be visible. */
  readonly gateEither: readonly (readonly [number, number])[];
  readonly gateEitherNames: readonly string[];
  compileCondition(e: Expr, side: SideKey): () => boolean;
  /** Slots a condition reads on a side, for reporting values. */
  slotsOf(e: Expr, side: SideKey): number[];
  resetFilters(): void;
  /**
   * Zeroes the parts of `state` (a copy of an engine's state array) that the program writes
   * before it reads them again: what a snapshot needs not carry.
   */
  clearUnusedState(state: Float64Array): void;
}

/** Seconds over which the body scale follower decays towards a shorter length. */
export const SCALE_TIME_CONSTANT = 5;

export function slotKey(name: string, side: SideKey): string {
  return `${side}:${name}`;
}
