/** How the client retries a request that failed in a way that may pass. */
export interface RetryPolicy {
  /** Attempts in all, the first included (default 4). 1 turns retries off. */
  readonly maxAttempts?: number;
  /** The first backoff in ms (default 200); it doubles each attempt, with full jitter. */
  readonly baseDelayMs?: number;
  /** The longest backoff in ms (default 5,000). */
  readonly maxDelayMs?: number;
  /** The longest Retry-After honoured, in ms (default 60,000): a longer one is not waited for. */
  readonly maxRetryAfterMs?: number;
}

export const DEFAULT_RETRY: Required<RetryPolicy> = {
  maxAttempts: 4,
  baseDelayMs: 200,
  maxDelayMs: 5000,
  maxRetryAfterMs: 60_000,
};

/** Full-jitter exponential backoff before attempt `attempt + 1` (attempt counts from 1). */
export function backoffMs(
  policy: Required<RetryPolicy>,
  attempt: number,
  random = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}

/** Waits `ms`, or rejects as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", abort, { once: true });
  });
}
