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
 */
import type { AdaptiveDef } from "../../compiled-spec.js";
import type { CompileContext } from "./compile-context.js";

/** Samples kept per second of window, at most. */
const MAX_SAMPLE_RATE = 60;
const EPS = 1e-9;

// Layout of an adaptive signal's state, from its offset.
const COUNT = 0;
const HEAD = 1;
const LAST_T = 2;
/** The last value: 0 until the range was first wide enough (at rest), then held while narrow. */
const VALUE = 3;
/** The current ends of the range (source units), for plots. */
export const ADAPTIVE_LO = 4;
export const ADAPTIVE_HI = 5;
const HEADER = 6;

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
  const at = ctx.state.alloc(HEADER + 3 * capacity, (s, o) => {
    s.fill(0, o, o + HEADER + 3 * capacity);
    s[o + LAST_T] = Number.NaN;
    s[o + ADAPTIVE_LO] = Number.NaN;
    s[o + ADAPTIVE_HI] = Number.NaN;
  });
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

  const evictOldest = (s: Float64Array) => {
    const n = s[at + COUNT];
    const head = s[at + HEAD];
    const i = lowerBound(s, sorted, n, s[ring + head]);
    s.copyWithin(sorted + i, sorted + i + 1, sorted + n);
    s[at + HEAD] = head + 1 === capacity ? 0 : head + 1;
    s[at + COUNT] = n - 1;
  };

  return {
    at,
    compute: () => {
      const s = memory.state;
      const t = memory.t;
      const x = source();
      while (s[at + COUNT] > 0 && t - s[times + s[at + HEAD]] > window + EPS) evictOldest(s);
      if (s[at + COUNT] === 0 || !(t - s[at + LAST_T] < minSpacing)) {
        if (s[at + COUNT] === capacity) evictOldest(s);
        const n = s[at + COUNT];
        const slot = (s[at + HEAD] + n) % capacity;
        s[times + slot] = t;
        s[ring + slot] = x;
        const j = upperBound(s, sorted, n, x);
        s.copyWithin(sorted + j + 1, sorted + j, sorted + n);
        s[sorted + j] = x;
        s[at + COUNT] = n + 1;
        s[at + LAST_T] = t;
      }
      const n = s[at + COUNT];
      const lo = percentile(s, sorted, n, qLow);
      const hi = percentile(s, sorted, n, qHigh);
      s[at + ADAPTIVE_LO] = lo;
      s[at + ADAPTIVE_HI] = hi;
      const range = hi - lo;
      if (!(range >= minRange)) return s[at + VALUE];
      const v = (restLow ? x - lo : hi - x) / range;
      const clamped = v < 0 ? 0 : v > 1 ? 1 : v;
      s[at + VALUE] = clamped;
      return clamped;
    },
  };
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
