/**
 * Adaptive signals: the position of a source value inside the range it took recently, 0 at the
 * rest end and 1 at the far end (clamped). The range runs between two percentiles of the source's
 * values over a time window, kept as a ring of (time, value) samples beside the same values in
 * sorted order, both inside the program's shared state array, so the window snapshots and
 * restores with the rest of the engine. At most MAX_SAMPLE_RATE samples a second are kept: the
 * memory is bounded and the same for any frame rate above it.
 *
 * While the range is narrower than `minRange` (noise, standing still) nothing moves: before the
 * first wide enough range the value is 0 (the person is at rest), afterwards it keeps its last
 * value, so a pause neither counts nor breaks a repetition.
 *
 * Settling in: until the source has gone once from the rest end to the far end and back (a first
 * repetition), a rest end it has not come back near for SETTLE_FRACTION of the window is the
 * posture the person came from (standing before getting down for push-ups, a pose model's
 * mis-tracked first seconds), not the exercise's rest: the window then keeps only that much
 * recent history, so the first repetitions are read against their own range instead of waiting
 * for the approach to leave the whole window.
 */
import type { AdaptiveDef } from "../../compiled-spec.js";
import type { CompileContext } from "./compile-context.js";

/** Samples kept per second of window, at most. */
const MAX_SAMPLE_RATE = 60;
const EPS = 1e-9;
/**
 * Settling in (see above): the fraction of the window after which an unvisited rest end is
 * forgotten (1.5 s of a 5 s window), and how near the rest end (a fraction of the range, the usual
 * rest threshold) counts as a visit.
 */
const SETTLE_FRACTION = 0.3;
const REST_ZONE = 0.3;

// Layout of an adaptive signal's state, from its offset.
const COUNT = 0;
const HEAD = 1;
const LAST_T = 2;
/** The last value: 0 until the range was first wide enough (at rest), then held while narrow. */
const VALUE = 3;
/** The current ends of the range (source units), for plots. */
export const ADAPTIVE_LO = 4;
export const ADAPTIVE_HI = 5;
/** When the source was last near the rest end (or the range was narrow), while settling in. */
const LAST_REST = 6;
/** Settling-in progress: 0 until at rest, 1 at rest, 2 at the far end, 3 back at rest (done). */
const STAGE = 7;
const HEADER = 8;
const SETTLED = 3;

function adaptiveCapacity(window: number): number {
  return Math.ceil(window * MAX_SAMPLE_RATE) + 2;
}

/** Compiles the adaptive value of `source`; `at` is where its state starts. */
export function compileAdaptive(
  ctx: CompileContext,
  def: AdaptiveDef,
  source: () => number,
): { compute: () => number; at: number } {
  const capacity = adaptiveCapacity(def.window);
  const at = ctx.state.alloc(
    HEADER + 3 * capacity,
    (s, o) => {
      s.fill(0, o, o + HEADER + 3 * capacity);
      s[o + LAST_T] = Number.NaN;
      s[o + ADAPTIVE_LO] = Number.NaN;
      s[o + ADAPTIVE_HI] = Number.NaN;
      s[o + LAST_REST] = Number.NaN;
    },
    (s, o) => clearFreeSlots(s, o, capacity),
  );
  const times = at + HEADER;
  const ring = times + capacity;
  const sorted = ring + capacity;
  const memory = ctx.memory;
  const window = def.window;
  const minSpacing = 1 / MAX_SAMPLE_RATE - EPS;
  const qLow = def.percentiles[0] / 100;
  const qHigh = def.percentiles[1] / 100;
  const restLow = def.rest === "low";
  const minRange = def.minRange;
  const settleAfter = SETTLE_FRACTION * window;

  const evictOldest = (s: Float64Array) => {
    const n = s[at + COUNT];
    const head = s[at + HEAD];
    const i = lowerBound(s, sorted, n, s[ring + head]);
    s.copyWithin(sorted + i, sorted + i + 1, sorted + n);
    s[at + HEAD] = head + 1 === capacity ? 0 : head + 1;
    s[at + COUNT] = n - 1;
  };

  /** Whether the oldest sample was taken before `since`. */
  const oldestBefore = (s: Float64Array, since: number) =>
    s[at + COUNT] > 0 && s[times + s[at + HEAD]] < since - EPS;

  /** Drops the samples taken before `since`. */
  const evictOlderThan = (s: Float64Array, since: number) => {
    while (oldestBefore(s, since)) evictOldest(s);
  };

  /** Writes (t, x) into the ring after its `n` samples from `head` (the sorted copy apart). */
  const writeNewest = (s: Float64Array, head: number, n: number, t: number, x: number) => {
    const slot = (head + n) % capacity;
    s[times + slot] = t;
    s[ring + slot] = x;
  };

  /** Adds the sample (t, x) after the newest; the window has room for it. */
  const append = (s: Float64Array, t: number, x: number) => {
    const n = s[at + COUNT];
    writeNewest(s, s[at + HEAD], n, t, x);
    const j = upperBound(s, sorted, n, x);
    s.copyWithin(sorted + j + 1, sorted + j, sorted + n);
    s[sorted + j] = x;
    s[at + COUNT] = n + 1;
  };

  /**
   * Drops the oldest sample and adds (t, x) after the newest: what evictOldest then append do,
   * the sorted values shifted once between the two positions instead of twice to the end (at
   * 30 frames a second in a full window, every frame does this).
   */
  const replaceOldest = (s: Float64Array, t: number, x: number) => {
    const n = s[at + COUNT];
    const head = s[at + HEAD];
    const i = lowerBound(s, sorted, n, s[ring + head]);
    const j = upperBound(s, sorted, n, x);
    if (i < j) {
      s.copyWithin(sorted + i, sorted + i + 1, sorted + j);
      s[sorted + j - 1] = x;
    } else {
      s.copyWithin(sorted + j + 1, sorted + j, sorted + i);
      s[sorted + j] = x;
    }
    writeNewest(s, head, n, t, x);
    s[at + HEAD] = head + 1 === capacity ? 0 : head + 1;
  };

  /** Sets the range's ends from the window's percentiles; returns its width. */
  const updateRange = (s: Float64Array): number => {
    const n = s[at + COUNT];
    const lo = percentile(s, sorted, n, qLow);
    const hi = percentile(s, sorted, n, qHigh);
    s[at + ADAPTIVE_LO] = lo;
    s[at + ADAPTIVE_HI] = hi;
    return hi - lo;
  };

  /** Unclamped position of x in [lo, hi]: 0 at the rest end, 1 at the far end. */
  const position = (x: number, lo: number, hi: number) => (restLow ? x - lo : hi - x) / (hi - lo);

  /**
   * Follows the first cycle (rest, far end, rest) and says whether the rest end has gone
   * unvisited for `settleAfter` seconds before it completed.
   */
  const settleIn = (s: Float64Array, t: number, x: number, range: number): boolean => {
    if (!(range >= minRange) || Number.isNaN(s[at + LAST_REST])) {
      s[at + LAST_REST] = t;
      return false;
    }
    const v = position(x, s[at + ADAPTIVE_LO], s[at + ADAPTIVE_HI]);
    const stage = s[at + STAGE];
    if (v <= REST_ZONE) {
      s[at + LAST_REST] = t;
      if (stage === 0 || stage === 2) s[at + STAGE] = stage + 1;
    } else if (v >= 1 - REST_ZONE && stage === 1) s[at + STAGE] = 2;
    return t - s[at + LAST_REST] > settleAfter + EPS;
  };

  return {
    at,
    compute: () => {
      const s = memory.state;
      const t = memory.t;
      const x = source();
      // The newest sample is never older than the window (it is at most minSpacing old when no
      // sample is added), so whether one is added can be told before evicting.
      if (s[at + COUNT] === 0 || !(t - s[at + LAST_T] < minSpacing)) {
        const since = t - window;
        // Every sample due but the last is dropped alone; the last (or, in a full window, the
        // oldest) makes room for the new one in the same shift.
        while (oldestBefore(s, since) && s[at + COUNT] > 1) {
          const next = s[at + HEAD] + 1 === capacity ? 0 : s[at + HEAD] + 1;
          if (!(s[times + next] < since - EPS)) break;
          evictOldest(s);
        }
        if (oldestBefore(s, since) || s[at + COUNT] === capacity) replaceOldest(s, t, x);
        else append(s, t, x);
        s[at + LAST_T] = t;
      } else evictOlderThan(s, t - window);
      let range = updateRange(s);
      if (s[at + STAGE] !== SETTLED && settleIn(s, t, x, range)) {
        evictOlderThan(s, t - settleAfter);
        range = updateRange(s);
      }
      if (!(range >= minRange)) return s[at + VALUE];
      const v = position(x, s[at + ADAPTIVE_LO], s[at + ADAPTIVE_HI]);
      const clamped = v < 0 ? 0 : v > 1 ? 1 : v;
      s[at + VALUE] = clamped;
      return clamped;
    },
  };
}

/**
 * Zeroes what a window at `at` holds outside its samples: the ring's slots (times and values)
 * outside head..head+count, and sorted[count..). They keep evicted samples until written again
 * and are never read before: a window that is full for 5 s at 30 frames a second uses half of
 * its 60-a-second capacity, and the other half is most of a snapshot's bytes.
 */
function clearFreeSlots(s: Float64Array, at: number, capacity: number): void {
  const n = s[at + COUNT];
  const head = s[at + HEAD];
  const times = at + HEADER;
  const ring = times + capacity;
  const sorted = ring + capacity;
  const end = head + n;
  if (end <= capacity) {
    s.fill(0, times, times + head);
    s.fill(0, times + end, times + capacity);
    s.fill(0, ring, ring + head);
    s.fill(0, ring + end, ring + capacity);
  } else {
    s.fill(0, times + end - capacity, times + head);
    s.fill(0, ring + end - capacity, ring + head);
  }
  s.fill(0, sorted + n, sorted + capacity);
}

/** First index in sorted[0..n) whose value is >= x. */
function lowerBound(s: Float64Array, base: number, n: number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s[base + mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index in sorted[0..n) whose value is > x. */
function upperBound(s: Float64Array, base: number, n: number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s[base + mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The q-quantile (0..1) of sorted[0..n), interpolated linearly between order statistics. */
function percentile(s: Float64Array, base: number, n: number, q: number): number {
  if (n === 0) return Number.NaN;
  const pos = q * (n - 1);
  const i = Math.floor(pos);
  const frac = pos - i;
  const a = s[base + i];
  return frac > 0 && i + 1 < n ? a + frac * (s[base + i + 1] - a) : a;
}
