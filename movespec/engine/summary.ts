/**
 * The session summary, kept so that the engine's state does not grow with the session: exact
 * running totals (count, partials, score sum, longest hold) live in the machine state
 * (machine/records.ts), and the per-repetition and per-hold records wait there only until the
 * caller takes them
 * (`Engine.takeRecords`) to store them elsewhere; `mergeSummary` puts them back at the end.
 *
 * The lists are in a canonical order that does not depend on when records were taken:
 * repetitions by the time they ended, holds by the time they started (left before right on a tie).
 */
import type { SideKey } from "../sides.js";
import { type HoldRecord, type RepRecord, r3, type SessionSummary } from "./events.js";
import { type Machine, openHold } from "./machine/index.js";
import type { MachineState } from "./machine/state.js";

/** Records taken out of an engine: what `session.summary` lists, in the order they were made. */
export interface SummaryRecords {
  reps: RepRecord[];
  holds: HoldRecord[];
}

/** Hands over (and forgets) the records made since the last call. */
export function takeRecords(machines: readonly Machine[]): SummaryRecords {
  const taken: SummaryRecords = { reps: [], holds: [] };
  for (const m of machines) {
    taken.reps.push(...m.state.reps);
    taken.holds.push(...m.state.holds);
    m.state.reps = [];
    m.state.holds = [];
  }
  return taken;
}

/** The summary from the totals; its lists hold only the records not taken yet (see mergeSummary). */
export function summarize(
  machines: readonly Machine[],
  session: { frames: number; firstT: number | null; lastT: number },
): SessionSummary {
  const holds: HoldRecord[] = [];
  let longest = 0;
  for (const m of machines) {
    holds.push(...m.state.holds);
    const open = openHold(m, session.lastT);
    if (open) holds.push(open);
    longest = Math.max(longest, m.state.longestHold, open?.elapsed ?? 0);
  }
  const count = machines.reduce((n, m) => n + m.state.count, 0);
  const scoreSum = machines.reduce((n, m) => n + m.state.scoreSum, 0);
  const summary: SessionSummary = {
    count,
    partials: machines.reduce((n, m) => n + m.state.partials, 0),
    score: count > 0 ? Math.round(scoreSum / count) : 0,
    reps: sortReps(machines.flatMap((m) => m.state.reps)),
    holds: sortHolds(holds),
    longest_hold: longest,
    frames: session.frames,
    duration: session.firstT === null ? 0 : r3(session.lastT - session.firstT),
  };
  if (machines.length > 1) {
    // One machine per side (`sides: both`): each counts its own side.
    const { count: total, ...rest } = summary;
    const countOn = (side: SideKey) => machines.find((m) => m.sides[0] === side)?.state.count ?? 0;
    return { count: total, counts: { left: countOn("left"), right: countOn("right") }, ...rest };
  }
  return summary;
}

/**
 * The whole session's summary: `summary` (from `finish()`) with the records taken out of the
 * engine before put back in their places. The totals in `summary` already cover them.
 */
export function mergeSummary<S extends SessionSummary>(
  summary: S,
  taken: readonly SummaryRecords[],
): S {
  if (taken.length === 0) return summary;
  return {
    ...summary,
    reps: sortReps([...taken.flatMap((r) => r.reps), ...summary.reps]),
    holds: sortHolds([...taken.flatMap((r) => r.holds), ...summary.holds]),
  };
}

/** A machine state from a snapshot made before the totals existed (format 1): totals from the lists. */
export function withTotals(s: MachineState): MachineState {
  if (typeof s.scoreSum === "number" && typeof s.longestHold === "number") return s;
  return {
    ...s,
    scoreSum: s.reps.reduce((n, r) => n + r.score, 0),
    longestHold: s.holds.reduce((n, h) => Math.max(n, h.elapsed), 0),
  };
}

const SIDE_ORDER: Record<string, number> = { left: 0, right: 1, both: 2 };
const sideRank = (side: string | undefined) => (side === undefined ? -1 : SIDE_ORDER[side]);

function sortReps(reps: RepRecord[]): RepRecord[] {
  return reps.sort(
    (a, b) => a.end_t - b.end_t || a.start_t - b.start_t || sideRank(a.side) - sideRank(b.side),
  );
}

function sortHolds(holds: HoldRecord[]): HoldRecord[] {
  return holds.sort((a, b) => a.start_t - b.start_t || sideRank(a.side) - sideRank(b.side));
}
