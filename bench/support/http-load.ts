import { createRequire } from "node:module";

/**
 * The measuring tools the HTTP benchmarks share: a closed-loop keep-alive load through autocannon
 * (in this process, so its CPU is part of what the 2-core machine spends) and sequential operations
 * per second. Medians: test/support/statistics.ts.
 */

/** The part of autocannon's result the benchmarks read (autocannon ships no types). */
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  /** Non-2xx answers plus connection errors: a benchmark with any is not a measurement. */
  readonly failed: number;
}

export interface LoadOptions {
  /** The target; with `paths`, the base the paths are cycled on. */
  readonly url: string;
  readonly paths?: readonly string[];
  readonly seconds: number;
  readonly connections: number;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const method = options.method ?? "GET";
  const result = await autocannon({
    url: options.url,
    method,
    headers: options.headers,
    body: options.body,
    connections: options.connections,
    duration: options.seconds,
    requests: options.paths?.map((path) => ({ method, path })),
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: result.latency.average,
    failed: result.non2xx + result.errors,
  };
}

/** Operations per second of an async function, run sequentially for `ms`. */
export async function opsPerSecond(fn: () => Promise<unknown>, ms: number): Promise<number> {
  const started = performance.now();
  let count = 0;
  while (performance.now() - started < ms) {
    await fn();
    count += 1;
  }
  return count / ((performance.now() - started) / 1000);
}
