/**
 * One detection state machine: tracking gate, phases with dwell and hysteresis, the repetition
 * cycle, the hold timer and form rules. `sides: both` runs two of these (left and right); every
 * other mode runs one, whose conditions read one side, the better-visible side (auto), both sides
 * at once (together) or whichever side moves (either).
 *
 * A machine is plain data: what `createMachine` compiles once (conditions per side, the slots of
 * the signals it accumulates) and `state`, which holds everything that changes. The other files
 * of this folder each own one concern and take the machine as their first argument.
 */
import type { CompiledSpec } from "../../compiled-spec.js";
import type { SideCombine, SideKey } from "../../sides.js";
import type { DetectionEvent } from "../events.js";
import type { Program } from "../program/index.js";
import type { MachineState } from "./state.js";

export type Emit = (e: Record<string, unknown> & { type: DetectionEvent["type"] }) => void;

export interface Sided<T> {
  /** One entry per side in `sides`. */
  readonly bySide: readonly T[];
}

export interface Machine {
  readonly spec: CompiledSpec;
  readonly program: Program;
  readonly emit: Emit;
  /** Sides this machine reads: [x] for one side, [left, right] for auto, together, either. */
  readonly sides: readonly SideKey[];
  readonly combine: SideCombine;
  /** Per phase: its enter and stay conditions, and the slots its enter condition reads. */
  readonly enter: readonly Sided<() => boolean>[];
  readonly stay: readonly Sided<() => boolean>[];
  readonly enterSlots: readonly Sided<number[]>[];
  /** Per form rule: its condition and the slots it reads. */
  readonly formWhen: readonly Sided<() => boolean>[];
  readonly formSlots: readonly Sided<number[]>[];
  readonly startWhen: Sided<() => boolean> | undefined;
  /** Accumulated signals (metrics, then the depth and progress signals) and their slots per side. */
  readonly statNames: readonly string[];
  readonly statSlots: Sided<number[]>;
  readonly progressIndex: number;
  readonly depthIndex: number;
  /** Per phase: in `either` mode, the start phase must hold on both sides (side index BOTH). */
  readonly allSides: readonly boolean[];
  /** Everything that changes; replaced as a whole on restore. */
  state: MachineState;
}

/** Tolerance on time comparisons, so that frame times summing to a duration reach it. */
export const EPS = 1e-9;
/** Side index meaning "both sides" (the start phase in `either` mode). */
export const BOTH = 2;
