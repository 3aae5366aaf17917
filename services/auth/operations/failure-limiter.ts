import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

/**
 * Counts failed credential checks per client address. The failure that reaches the limit within
 * the window blocks the address (429 with Retry-After) for the block duration from then, valid
 * credentials included: guessing must not be able to tell when it finally succeeded.
 *
 * In memory: one auth replica's view. With several replicas each counts alone (the limit becomes
 * N times looser), which is acceptable for 256-bit secrets; a shared store (RateLimiterMongo) is
 * the upgrade path.
 */
export function createFailureLimiter(options: {
  points: number;
  windowSeconds: number;
  blockSeconds: number;
}) {
  const limiter = new RateLimiterMemory({
    points: options.points,
    duration: options.windowSeconds,
    blockDuration: options.blockSeconds,
  });
  return {
    /** Seconds until the address may try again, or 0 when it is not blocked. */
    async blockedFor(address: string): Promise<number> {
      const state = await limiter.get(address);
      if (!state || state.consumedPoints < options.points) return 0;
      return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
    },
    async recordFailure(address: string): Promise<void> {
      let consumed: number;
      try {
        consumed = (await limiter.consume(address)).consumedPoints;
      } catch (error) {
        if (!(error instanceof RateLimiterRes)) throw error;
        consumed = error.consumedPoints;
      }
      // The failure that reaches the limit starts the block. rate-limiter-flexible would only
      // start `blockDuration` at the consume after it, which a blocked address never makes:
      // the block then ended with the window instead.
      if (consumed >= options.points) await limiter.block(address, options.blockSeconds);
    },
  };
}

export type FailureLimiter = ReturnType<typeof createFailureLimiter>;
