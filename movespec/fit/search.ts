/**
 * The search behind `movespec fit`: a coordinate search over each free number's grid. Each
 * number in turn takes every value of its grid with the others held; it moves to the middle of
 * the longest run of values that score best (the widest margin: a threshold in the middle of
 * the interval that works, not at its edge), and rounds repeat until none moves. Deterministic:
 * the same start, grids and scores give the same result.
 */
import type { FitParameter } from "../compiled-spec.js";
import { placesOfGrid } from "./apply.js";
import type { Outcome } from "./evaluate.js";
import { isExact, isWithinOne, relativeError } from "./scoring.js";

/**
 * How well a set of values counts a set of recordings: how many recordings are exact and within
 * one, the sum of their relative errors, and the repetitions counted inside true ones. Weighted
 * (scoreOf), each sum counts a recording by its weight.
 */
export interface Score {
  readonly clips: number;
  readonly exact: number;
  readonly withinOne: number;
  /** Sum of relative errors (|counted - expected| / expected; the count itself for an expected 0). */
  readonly error: number;
  /** Counted repetitions inside a true one (recordings with true repetitions). */
  readonly inside: number;
}

/** The score of outcomes, each counted once, or by its weight (aligned with `outcomes`). */
export function scoreOf(outcomes: readonly Outcome[], weights?: readonly number[]): Score {
  let exact = 0;
  let withinOne = 0;
  let error = 0;
  let inside = 0;
  outcomes.forEach((o, i) => {
    const w = weights?.[i] ?? 1;
    if (isExact(o)) exact += w;
    if (isWithinOne(o)) withinOne += w;
    error += w * relativeError(o);
    inside += w * (o.inside ?? 0);
  });
  return { clips: outcomes.length, exact, withinOne, error, inside };
}

/** Weighted sums are equal within this. */
const EPS = 1e-9;

/**
 * Positive when `a` is better than `b`, 0 when they tie: more recordings exact, then more within
 * one, then a smaller error, then more repetitions inside true ones.
 */
export function compareScores(a: Score, b: Score): number {
  if (Math.abs(a.exact - b.exact) > EPS) return a.exact - b.exact;
  if (Math.abs(a.withinOne - b.withinOne) > EPS) return a.withinOne - b.withinOne;
  if (Math.abs(a.error - b.error) > EPS) return b.error - a.error;
  if (Math.abs(a.inside - b.inside) > EPS) return a.inside - b.inside;
  return 0;
}

/** The values a parameter is tried at: its range in steps, each written as the MoveSpec would. */
export function gridOf(p: FitParameter): number[] {
  const [lo, hi] = p.range;
  const places = placesOfGrid(p);
  const n = Math.floor((hi - lo) / p.step + 1e-9);
  const out: number[] = [];
  for (let i = 0; i <= n; i++) out.push(Number((lo + i * p.step).toFixed(places)));
  return out;
}

/** Where a fitted value sits among the values that score as well. */
export interface Margin {
  /** The lowest and highest grid values of the run of equal scores the value is in. */
  readonly low: number;
  readonly high: number;
  /** The run reaches the end of the range: the best value may lie beyond it. */
  readonly atLowEdge: boolean;
  readonly atHighEdge: boolean;
  /** Every value of the range scores the same: the recordings do not decide this number. */
  readonly undecided: boolean;
}

export interface SearchResult {
  readonly values: number[];
  /** Undefined when no value of the grids gave a MoveSpec that loads. */
  readonly score?: Score;
  readonly margins: Margin[];
  readonly rounds: number;
}

export interface SearchOptions {
  readonly maxRounds: number;
}

/**
 * Searches from `start` (each value snapped to its grid). `objective` scores a set of values, or
 * answers undefined when they make a MoveSpec that does not load (they are never chosen).
 */
export function coordinateSearch(
  parameters: readonly FitParameter[],
  start: readonly number[],
  objective: (values: readonly number[]) => Score | undefined,
  options: SearchOptions,
): SearchResult {
  const grids = parameters.map(gridOf);
  const index = start.map((v, i) => nearestIndex(grids[i], v));
  const valuesAt = (p: number, j: number) =>
    index.map((k, i) => (i === p ? grids[i][j] : grids[i][k]));
  let best = objective(valuesAt(-1, 0));
  let rounds = 0;
  const scan = (p: number) =>
    grids[p].map((_, j) => (j === index[p] ? best : objective(valuesAt(p, j))));
  while (rounds < options.maxRounds) {
    rounds++;
    let moved = false;
    for (let p = 0; p < parameters.length; p++) {
      const scores = scan(p);
      const j = chooseIndex(scores, index[p]);
      if (j !== undefined && j !== index[p]) {
        index[p] = j;
        best = scores[j];
        moved = true;
      }
    }
    if (!moved) break;
  }
  const margins = parameters.map((_, p) => marginOf(grids[p], scan(p), index[p]));
  return { values: valuesAt(-1, 0), score: best, margins, rounds };
}

function nearestIndex(grid: readonly number[], v: number): number {
  let best = 0;
  for (let j = 1; j < grid.length; j++)
    if (Math.abs(grid[j] - v) < Math.abs(grid[best] - v) - 1e-12) best = j;
  return best;
}

/** The best scores' runs of neighbouring grid values: [first, last] index of each. */
function bestRuns(scores: readonly (Score | undefined)[]): [number, number][] {
  let top: Score | undefined;
  for (const s of scores) if (s && (!top || compareScores(s, top) > 0)) top = s;
  if (!top) return [];
  const runs: [number, number][] = [];
  scores.forEach((s, j) => {
    if (!s || compareScores(s, top) !== 0) return;
    const last = runs.at(-1);
    if (last && last[1] === j - 1) last[1] = j;
    else runs.push([j, j]);
  });
  return runs;
}

/**
 * The middle of the longest run of best scores (ties: the run holding `current`, else the first);
 * of two middles, the one nearer `current`, else the lower.
 */
function chooseIndex(scores: readonly (Score | undefined)[], current: number): number | undefined {
  const runs = bestRuns(scores);
  if (runs.length === 0) return undefined;
  const holds = (r: [number, number]) => r[0] <= current && current <= r[1];
  let pick = runs[0];
  for (const r of runs) {
    const longer = r[1] - r[0] > pick[1] - pick[0];
    const asLong = r[1] - r[0] === pick[1] - pick[0];
    if (longer || (asLong && holds(r) && !holds(pick))) pick = r;
  }
  const lower = Math.floor((pick[0] + pick[1]) / 2);
  const upper = Math.ceil((pick[0] + pick[1]) / 2);
  return Math.abs(upper - current) < Math.abs(lower - current) ? upper : lower;
}

function marginOf(
  grid: readonly number[],
  scores: readonly (Score | undefined)[],
  j: number,
): Margin {
  const same = (k: number) => {
    const a = scores[k];
    const b = scores[j];
    return a !== undefined && b !== undefined && compareScores(a, b) === 0;
  };
  let a = j;
  let b = j;
  while (a > 0 && same(a - 1)) a--;
  while (b < grid.length - 1 && same(b + 1)) b++;
  return {
    low: grid[a],
    high: grid[b],
    atLowEdge: a === 0,
    atHighEdge: b === grid.length - 1,
    undecided: a === 0 && b === grid.length - 1,
  };
}
