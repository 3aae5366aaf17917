/**
 * The token exchange end to end, with the CPU every process spends on it (run on demand, never in
 * `npm test`):
 *
 *   node --import tsx bench/auth/token-exchange.bench.ts
 *   BENCH_PROFILE_DIR=/tmp/prof node --import tsx bench/auth/token-exchange.bench.ts   # + profiles
 *
 * The whole system (embedded store, the services, the gateway; LOG_LEVEL=info) on this machine,
 * the load generator (autocannon, in this process) included. `POST /api/auth/access-tokens` with
 * an API key, BENCH_CONNECTIONS (default 10) keep-alive connections, BENCH_ROUNDS (default 5)
 * rounds of BENCH_SECONDS (default 5) after a warm-up round. Per round: requests per second, p50
 * and p99 latency, and CPU microseconds per request of the gateway, auth, the store and the load
 * generator (Linux /proc), so that a neighbour's load, which inflates wall time, can be told
 * apart from our own cost. Medians over the rounds. With BENCH_PROFILE_DIR, every process of the
 * system writes a CPU profile there when it stops (bench/support/cpu-profile.ts).
 */
import { createProjectWithKey } from "../../test/support/auth.js";
import { median } from "../../test/support/statistics.js";
import { startTestSystem } from "../../test/support/system.js";
import { cpuSpentPerProcess, processCpu } from "../detection/scenarios.js";
import { load } from "../support/http-load.js";
import { profilingEnv } from "../support/profiling.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;

const system = await startTestSystem({
  env: { LOG_LEVEL: "info", ...(PROFILE_DIR ? profilingEnv(PROFILE_DIR) : {}) },
  startTimeoutMs: 120_000,
});
try {
  const project = await createProjectWithKey(system, { name: "bench" });
  const body = JSON.stringify({ api_key: project.apiKey });
  const round = (seconds: number) =>
    load({
      url: `${system.gatewayUrl}/api/auth/access-tokens`,
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      connections: CONNECTIONS,
      seconds,
    });
  await round(2);

  const rates: number[] = [];
  const p50s: number[] = [];
  const p99s: number[] = [];
  const cpuPerRequest = new Map<string, number[]>();
  process.stdout.write(
    `token exchange, POST /api/auth/access-tokens, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s\n`,
  );
  for (let index = 0; index < ROUNDS; index += 1) {
    const before = processCpu(system);
    const generatorBefore = process.cpuUsage();
    const result = await round(SECONDS);
    const generator = process.cpuUsage(generatorBefore);
    if (result.failed > 0) throw new Error(`${result.failed} failed token requests`);
    const requests = result.requestsPerSecond * SECONDS;
    const spent = cpuSpentPerProcess(before, processCpu(system));
    spent.set("load generator", (generator.user + generator.system) / 1e6);
    const perRequest: string[] = [];
    for (const [name, seconds] of spent) {
      if (seconds === 0 && name !== "gateway") continue;
      const micros = (seconds * 1e6) / requests;
      cpuPerRequest.set(name, [...(cpuPerRequest.get(name) ?? []), micros]);
      perRequest.push(`${name} ${micros.toFixed(0)}`);
    }
    rates.push(result.requestsPerSecond);
    p50s.push(result.p50Ms);
    p99s.push(result.p99Ms);
    process.stdout.write(
      `  round ${index + 1}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms; CPU µs per request: ${perRequest.join(", ")}\n`,
    );
  }
  process.stdout.write(
    `=> median ${median(rates).toFixed(0)} req/s, p50 ${median(p50s)} ms, p99 ${median(p99s)} ms\n`,
  );
  process.stdout.write(
    `=> CPU µs per request (median): ${[...cpuPerRequest]
      .map(([name, values]) => `${name} ${median(values).toFixed(0)}`)
      .join(", ")}\n`,
  );
} finally {
  await system.stop();
}
