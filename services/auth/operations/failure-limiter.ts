import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

/**
 * Counts failed credential checks per client address. Past the limit within the window, the
 * address is blocked (429 with Retry-After) for the block duration, valid credentials included:
 * guessing must not be able to tell when it finally succeeded.
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
      try {
        await limiter.consume(address);
      } catch (error) {
        if (!(error instanceof RateLimiterRes)) throw error;
      }
    },
  };
}

export type FailureLimiter = ReturnType<typeof createFailureLimiter>;
