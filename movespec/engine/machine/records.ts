/**
 * What a machine remembers of each counted repetition and each finished hold: the record (kept
 * until the engine's caller takes it, see ../summary.ts) and exact running totals that stay.
 */
import type { HoldRecord, RepRecord } from "../events.js";
import type { MachineState } from "./state.js";

export function recordRep(s: MachineState, record: RepRecord): void {
  s.reps.push(record);
  s.scoreSum += record.score;
}

export function recordHold(s: MachineState, record: HoldRecord): void {
  s.holds.push(record);
  if (record.elapsed > s.longestHold) s.longestHold = record.elapsed;
}
