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

/**
 * Filters `x` observed at time `t` (seconds) with the state at `at`; the smoothed value is then
 * `state[at]`. One function for every kind, called from one place (evaluate-frame.ts), which the
 * compiler inlines: read back from the array, the value is never boxed as a closure's or a
 * function's returned double can be.
 */
export function smooth(s: Smoothing, state: Float64Array, at: number, x: number, t: number): void {
  switch (s.kind) {
    case "none":
      state[at] = x;
      state[at + 2] = t;
      return;
    case "ema": {
      const tau = s.timeConstant;
      const prev = state[at];
      const dt = t - state[at + 2];
      state[at + 2] = t;
      state[at] =
        Number.isNaN(prev) || tau <= 0 ? x : prev + (1 - Math.exp(-dt / tau)) * (x - prev);
      return;
    }
    case "one_euro": {
      const prev = state[at];
      if (Number.isNaN(prev)) {
        state[at] = x;
        state[at + 1] = 0;
        state[at + 2] = t;
        return;
      }
      const dt = t - state[at + 2];
      state[at + 2] = t;
      // No time has passed: the value stays.
      if (!(dt > 0)) return;
      const dx = (x - prev) / dt;
      const edx = state[at + 1] + alpha(s.dCutoff, dt) * (dx - state[at + 1]);
      const cutoff = s.minCutoff + s.beta * Math.abs(edx);
      state[at] = prev + alpha(cutoff, dt) * (x - prev);
      state[at + 1] = edx;
      return;
    }
  }
}
