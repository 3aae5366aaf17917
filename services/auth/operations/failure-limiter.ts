import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

/**
 * Counts failed credential checks per client address. The failure that reaches the limit within
 * the window blocks the address (429 with Retry-After) for the block duration from then, valid
 * credentials included: guessing must not be able to tell when it finally succeeded.
 *
 * A check in progress may be a failure still to be counted: an address never has more checks in
 * flight than the failures it has left before the limit (`admit`). Without that, a burst of a
 * thousand concurrent guesses all passed the "blocked?" test before the first failure was
 * counted. The checks beyond wait their turn (a well-behaved burst from one address is only
 * delayed by a few milliseconds); past MAX_WAITING per address, they are refused as blocked.
 *
 * In memory: one auth replica's view. With several replicas each counts alone (the limit becomes
 * N times looser), which is acceptable for 256-bit secrets; a shared store (RateLimiterMongo) is
 * the upgrade path.
 */
export function createFailureLimiter(options: {
  points: number;
  windowSeconds: number;
  blockSeconds: number;
  /** Checks of one address waiting for their turn, past which it is answered blocked. */
  maxWaiting?: number;
}) {
  const maxWaiting = options.maxWaiting ?? MAX_WAITING;
  const limiter = new RateLimiterMemory({
    points: options.points,
    duration: options.windowSeconds,
    blockDuration: options.blockSeconds,
  });
  const gates = new Map<string, { active: number; waiting: Array<() => void> }>();

  const state = async (address: string) => {
    const held = await limiter.get(address);
    const failures = held?.consumedPoints ?? 0;
    const blockedFor =
      held && failures >= options.points ? Math.max(1, Math.ceil(held.msBeforeNext / 1000)) : 0;
    return { failures, blockedFor };
  };

  return {
    /** Seconds until the address may try again, or 0 when it is not blocked. */
    async blockedFor(address: string): Promise<number> {
      return (await state(address)).blockedFor;
    },
    /**
     * Waits until the address may start one more credential check: answers `blockedFor` (> 0:
     * refused) or a `release` to call once the check ended, its failure (if any) recorded.
     */
    async admit(address: string): Promise<{ blockedFor: number; release: () => void }> {
      for (;;) {
        const { failures, blockedFor } = await state(address);
        if (blockedFor > 0) return { blockedFor, release: () => undefined };
        let gate = gates.get(address);
        if (!gate) {
          gate = { active: 0, waiting: [] };
          gates.set(address, gate);
        }
        if (gate.active + failures < options.points) {
          gate.active += 1;
          const admitted = gate;
          let released = false;
          return {
            blockedFor: 0,
            release: () => {
              if (released) return;
              released = true;
              admitted.active -= 1;
              // Everyone waiting looks again: the failure count may have changed either way.
              for (const wake of admitted.waiting.splice(0)) wake();
              if (admitted.active === 0 && gates.get(address) === admitted) gates.delete(address);
            },
          };
        }
        if (gate.waiting.length >= maxWaiting) return { blockedFor: 1, release: () => undefined };
        const current = gate;
        await new Promise<void>((resolve) => current.waiting.push(resolve));
      }
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

/** The default of `maxWaiting`. */
const MAX_WAITING = 1000;

export type FailureLimiter = ReturnType<typeof createFailureLimiter>;
