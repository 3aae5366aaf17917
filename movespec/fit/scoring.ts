/**
 * How a count is scored against a labelled recording: exact, within one, absolute and relative
 * error, and how many counted repetitions fall inside a true repetition. `movespec fit` chooses
 * numbers by these rules and the accuracy benchmark reports them. Pure functions, unit-tested in
 * test/movespec/fit-scoring.test.ts.
 */

/** A true repetition: [start, end] in seconds of the recording's own clock. */
export type Segment = readonly [number, number];

/**
 * How far past the end of a true segment a repetition may still be reported and count as inside
 * it: a quarter of the segment, at least 0.2 s (smoothing and a phase's dwell delay the event by
 * about that much) and at most 1 s. Manifests round seconds to 1 ms, hence the small slack before
 * the start.
 */
export const LATE_FRACTION = 0.25;
export const LATE_MIN_SECONDS = 0.2;
export const LATE_MAX_SECONDS = 1.0;
const ROUNDING_SLACK = 0.002;

/** The times at which a repetition reported at time t counts as inside `segment`. */
export function insideWindow(segment: Segment): [number, number] {
  const [start, end] = segment;
  const late = Math.min(
    LATE_MAX_SECONDS,
    Math.max(LATE_MIN_SECONDS, LATE_FRACTION * (end - start)),
  );
  return [start - ROUNDING_SLACK, end + late];
}

export interface BoundaryMatch {
  /** Counted repetitions matched to a true segment (each segment takes at most one). */
  inside: number;
  /** For each counted repetition (in the order given), the index of its segment, or -1. */
  segmentOf: number[];
}

/**
 * Matches counted repetitions (the times of their rep.completed events) one-to-one to true
 * segments: a repetition may take a segment when its time falls inside the segment's window
 * (`insideWindow`). Repetitions are taken in time order, each by the unmatched segment whose
 * window closes first; for points and intervals this greedy rule gives the largest possible
 * matching, so a double count in one segment never steals the next segment's repetition.
 */
export function matchRepetitions(
  repTimes: readonly number[],
  segments: readonly Segment[],
): BoundaryMatch {
  const windows = segments.map(insideWindow);
  const taken = new Array<boolean>(segments.length).fill(false);
  const order = repTimes.map((t, i) => ({ t, i })).sort((a, b) => a.t - b.t || a.i - b.i);
  const segmentOf = new Array<number>(repTimes.length).fill(-1);
  let inside = 0;
  for (const { t, i } of order) {
    let best = -1;
    for (let s = 0; s < windows.length; s++) {
      if (taken[s] || t < windows[s][0] || t > windows[s][1]) continue;
      if (best === -1 || windows[s][1] < windows[best][1]) best = s;
    }
    if (best !== -1) {
      taken[best] = true;
      segmentOf[i] = best;
      inside++;
    }
  }
  return { inside, segmentOf };
}

/** The outcome of one recording. */
export interface ClipScore {
  expected: number;
  /** Repetitions counted; undefined when no reference MoveSpec could run (a miss). */
  counted?: number;
  /** Matched repetitions, when the recording has true segments and was counted. */
  inside?: number;
}

/** A miss (no MoveSpec) is neither exact nor within one, and its error is the whole count. */
export function absoluteError(c: ClipScore): number {
  return Math.abs((c.counted ?? 0) - c.expected);
}

/** |counted - expected| / expected, as the RepCount literature reports "MAE"; the whole count for an expected 0. */
export function relativeError(c: ClipScore): number {
  return c.expected > 0 ? absoluteError(c) / c.expected : absoluteError(c);
}

export function isExact(c: ClipScore): boolean {
  return c.counted !== undefined && c.counted === c.expected;
}

export function isWithinOne(c: ClipScore): boolean {
  return c.counted !== undefined && Math.abs(c.counted - c.expected) <= 1;
}

export interface Tally {
  clips: number;
  /** Clips without a reference MoveSpec (or whose MoveSpec could not run). */
  missing: number;
  exact: number;
  withinOne: number;
  /** Mean absolute error in repetitions. */
  mae: number;
  /** Mean of |counted - expected| / expected, as the RepCount literature reports "MAE". */
  relativeMae: number;
  /** Over the clips with true segments that were counted: repetitions counted and inside one. */
  counted: number;
  inside: number;
  /** Clips the boundary columns cover. */
  withSegments: number;
}

export function tally(clips: readonly ClipScore[]): Tally {
  const t: Tally = {
    clips: clips.length,
    missing: 0,
    exact: 0,
    withinOne: 0,
    mae: 0,
    relativeMae: 0,
    counted: 0,
    inside: 0,
    withSegments: 0,
  };
  if (clips.length === 0) return t;
  let error = 0;
  let relative = 0;
  for (const c of clips) {
    if (c.counted === undefined) t.missing++;
    if (isExact(c)) t.exact++;
    if (isWithinOne(c)) t.withinOne++;
    error += absoluteError(c);
    relative += relativeError(c);
    if (c.counted !== undefined && c.inside !== undefined) {
      t.withSegments++;
      t.counted += c.counted;
      t.inside += c.inside;
    }
  }
  t.mae = error / clips.length;
  t.relativeMae = relative / clips.length;
  return t;
}

/** FNV-1a, 32 bits: a stable hash of a clip id, the same on every machine and Node version. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
