/**
 * A token bucket over frames: `ratePerSecond` sustained, `burst` at once. Time is the server's
 * arrival time (frames' own timestamps are the client's and could lie).
 */
export interface FrameRateLimiter {
  /** Takes `frames` tokens; false (and nothing taken) if the bucket does not hold that many. */
  take(frames: number, nowMs: number): boolean;
}

export function createFrameRateLimiter(ratePerSecond: number, burst: number): FrameRateLimiter {
  const capacity = Math.max(burst, 1);
  let tokens = capacity;
  let last: number | undefined;
  return {
    take(frames, nowMs) {
      if (last !== undefined) {
        tokens = Math.min(capacity, tokens + ((nowMs - last) * ratePerSecond) / 1000);
      }
      last = nowMs;
      if (frames > tokens) return false;
      tokens -= frames;
      return true;
    },
  };
}
