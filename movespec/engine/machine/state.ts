/**
 * All mutable state of a machine: a plain JSON-safe object (no NaN: unset times are null), so a
 * snapshot is a deep copy.
 */
import type { CompiledSpec } from "../../compiled-spec.js";
import type { HoldRecord, RepRecord } from "../events.js";

export interface MachineState {
  autoSide: 0 | 1;
  /** The auto side has been chosen on a first tracked frame. */
  autoChosen: boolean;
  autoSince: number | null;
  /**
   * Since when the auto side's gate has failed while the other side's held (null: it has not).
   * Absent from snapshots taken before it existed: read as null.
   */
  autoLostSince?: number | null;
  tracked: boolean;
  gateFailSince: number | null;
  resetDone: boolean;
  phase: number;
  phaseSide: number;
  phaseSince: number | null;
  lastPhase: number;
  candidate: number;
  candidateSide: number;
  candidateSince: number | null;
  armed: boolean;
  startSince: number | null;
  inRep: boolean;
  stage: number;
  repStart: number;
  repSide: number;
  stageTimes: number[];
  phaseTime: number[];
  lastUpdate: number | null;
  /** Per metric signal and side: [min, max] (null until seen). */
  stats: ([number, number] | null)[];
  /** The same while resting in the start phase; a repetition's range of motion starts from it. */
  restStats: ([number, number] | null)[];
  progressExtreme: number | null;
  violations: string[];
  penalty: number;
  voided: boolean;
  count: number;
  partials: number;
  holdActive: boolean;
  holdCompleted: boolean;
  holdStart: number;
  holdLastIn: number;
  holdNextProgress: number;
  /** When the last hold ended: a new hold cannot start earlier (the phase may have been paused). */
  holdEndedAt: number | null;
  formSince: (number | null)[];
  formCooldownUntil: number[];
  /** Records not yet taken by the engine's caller (records.ts); the totals below cover all. */
  reps: RepRecord[];
  holds: HoldRecord[];
  /** Sum of the scores of every counted repetition. */
  scoreSum: number;
  /** Longest finished hold, seconds. */
  longestHold: number;
}

export function initialMachineState(spec: CompiledSpec, statCount: number): MachineState {
  return {
    autoSide: 0,
    autoChosen: false,
    autoSince: null,
    tracked: true,
    gateFailSince: null,
    resetDone: false,
    phase: -1,
    phaseSide: 0,
    phaseSince: null,
    lastPhase: -1,
    candidate: -1,
    candidateSide: 0,
    candidateSince: null,
    armed: false,
    startSince: null,
    inRep: false,
    stage: 0,
    repStart: 0,
    repSide: 0,
    stageTimes: [],
    phaseTime: spec.phases.map(() => 0),
    lastUpdate: null,
    stats: Array.from({ length: statCount }, () => null),
    restStats: Array.from({ length: statCount }, () => null),
    progressExtreme: null,
    violations: [],
    penalty: 0,
    voided: false,
    count: 0,
    partials: 0,
    holdActive: false,
    holdCompleted: false,
    holdStart: 0,
    holdLastIn: 0,
    holdNextProgress: 0,
    holdEndedAt: null,
    formSince: spec.form.map(() => null),
    formCooldownUntil: spec.form.map(() => Number.MIN_SAFE_INTEGER),
    reps: [],
    holds: [],
    scoreSum: 0,
    longestHold: 0,
  };
}
