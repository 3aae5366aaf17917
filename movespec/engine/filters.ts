/**
 * Smoothing filters over the frames' own timestamps, with their state in a shared
 * Float64Array (so the engine's state snapshots as one array).
 *
 * One Euro filter: Casiez, Roussel, Vogel, "1 Euro Filter: A Simple Speed-based Low-pass Filter
 * for Noisy Input in Interactive Systems", CHI 2012.
 */
import type { Smoothing } from "../compiled-spec.js";

export const FILTER_STATE_SIZE = 3;

function alpha(cutoff: number, dt: number): number {
  const r = 2 * Math.PI * cutoff * dt;
  return r / (r + 1);
}

export function resetFilter(state: Float64Array, at: number): void {
  state[at] = Number.NaN;
  state[at + 1] = 0;
  state[at + 2] = Number.NaN;
}

/** Filters `x` observed at time `t` (seconds); returns the smoothed value. */
export function makeFilter(
  s: Smoothing,
): (state: Float64Array, at: number, x: number, t: number) => number {
  switch (s.kind) {
    case "none":
      return (state, at, x, t) => {
        state[at] = x;
        state[at + 2] = t;
        return x;
      };
    case "ema": {
      const tau = s.timeConstant;
      return (state, at, x, t) => {
        const prev = state[at];
        const dt = t - state[at + 2];
        state[at + 2] = t;
        if (Number.isNaN(prev) || tau <= 0) {
          state[at] = x;
          return x;
        }
        const y = prev + (1 - Math.exp(-dt / tau)) * (x - prev);
        state[at] = y;
        return y;
      };
    }
    case "one_euro": {
      const { minCutoff, beta, dCutoff } = s;
      return (state, at, x, t) => {
        const prev = state[at];
        if (Number.isNaN(prev)) {
          state[at] = x;
          state[at + 1] = 0;
          state[at + 2] = t;
          return x;
        }
        const dt = t - state[at + 2];
        state[at + 2] = t;
        if (!(dt > 0)) return prev;
        const dx = (x - prev) / dt;
        const edx = state[at + 1] + alpha(dCutoff, dt) * (dx - state[at + 1]);
        const cutoff = minCutoff + beta * Math.abs(edx);
        const y = prev + alpha(cutoff, dt) * (x - prev);
        state[at] = y;
        state[at + 1] = edx;
        return y;
      };
    }
  }
}
