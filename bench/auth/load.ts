import { createRequire } from "node:module";

/** The part of autocannon's result these benchmarks read (it ships no types). */
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
  readonly non2xx: number;
}

/** A closed-loop HTTP load (keep-alive connections) against one URL for `seconds`. */
export async function load(options: {
  url: string;
  seconds: number;
  connections: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? "GET",
    headers: options.headers,
    body: options.body,
    connections: options.connections,
    duration: options.seconds,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: result.latency.average,
    non2xx: result.non2xx + result.errors,
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
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
