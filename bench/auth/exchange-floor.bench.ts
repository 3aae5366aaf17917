/**
 * What a token exchange must cost on this machine whatever our code does (run on demand, never in
 * `npm test`):
 *
 *   node --import tsx bench/auth/exchange-floor.bench.ts
 *
 * Two chains answer `POST /api/auth/access-tokens` with the same keep-alive load (autocannon in
 * this process, BENCH_CONNECTIONS connections, default 10):
 *
 * - **the system** (the baseline): the gateway, auth and the embedded store as `npm test` starts
 *   them (LOG_LEVEL=info, mutual TLS);
 * - **the floor**: the same libraries and hops with nothing of ours between them
 *   (`floor/gateway-floor.ts`: Koa, @koa/router, a JSON body, one connect-node call;
 *   `floor/auth-floor.ts`: the services' gRPC server, one mongodb `findOne` on the same embedded
 *   store, a constant-time compare, an Ed25519 JWT from jose), over mutual TLS with the system's
 *   certificates.
 *
 * BENCH_ROUNDS (5) rounds of BENCH_SECONDS (5) s, the two chains alternating. Per round: requests
 * per second, p50/p99, CPU µs per request of every process (Linux /proc; the load generator's
 * own from process.cpuUsage). Medians, the floor's share of the system's CPU, and the most
 * exchanges a second the machine's cores could do at the floor's CPU per exchange (all cores busy
 * on nothing else): the bound any implementation on these libraries meets here.
 */
import { availableParallelism } from "node:os";
import { MongoClient } from "mongodb";
import { HOT_PATH_NODE_FLAGS } from "../../deploy/local/node-flags.js";
import { createProjectWithKey } from "../../test/support/auth.js";
import { median } from "../../test/support/statistics.js";
import { startTestSystem } from "../../test/support/system.js";
import { cpuSpentPerProcess, processCpu } from "../detection/scenarios.js";
import { type FloorProcess, startFloor } from "../support/floor-process.js";
import { load } from "../support/http-load.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const FLOOR_KEY = { id: "0195a2b4-7c1d-7000-8000-00000000f100", secret: "s".repeat(43) };

const system = await startTestSystem({ env: { LOG_LEVEL: "info" }, startTimeoutMs: 120_000 });
const floors: FloorProcess[] = [];
try {
  if (!system.pki) throw new Error("the floor needs the system's mutual TLS certificates");
  const project = await createProjectWithKey(system, { name: "bench" });
  const mongo = await new MongoClient(system.mongodbUri).connect();
  await mongo
    .db("exchange_floor")
    .collection<{ _id: string; secret: string }>("credentials")
    .insertOne({ _id: FLOOR_KEY.id, secret: FLOOR_KEY.secret });
  await mongo.close();

  const tls = (workload: "auth" | "gateway") => ({
    FLOOR_TLS_DIR: system.pki?.tlsDirOf(workload) ?? "",
    FLOOR_TRUST_DOMAIN: system.pki?.trustDomain ?? "",
  });
  const auth = await startFloor(new URL("./floor/auth-floor.ts", import.meta.url), {
    FLOOR_MONGODB_URI: system.mongodbUri,
    ...tls("auth"),
  });
  floors.push(auth);
  const gateway = await startFloor(
    new URL("./floor/gateway-floor.ts", import.meta.url),
    { FLOOR_AUTH_URL: `https://127.0.0.1:${auth.port}`, ...tls("gateway") },
    HOT_PATH_NODE_FLAGS,
  );
  floors.push(gateway);

  const chains = {
    system: {
      url: `${system.gatewayUrl}/api/auth/access-tokens`,
      body: JSON.stringify({ api_key: project.apiKey }),
      cpu: () => processCpu(system),
    },
    floor: {
      url: `http://127.0.0.1:${gateway.port}/api/auth/access-tokens`,
      body: JSON.stringify({ api_key: `${FLOOR_KEY.id}.${FLOOR_KEY.secret}` }),
      cpu: () =>
        new Map([
          ["gateway", gateway.cpuSeconds()],
          ["auth", auth.cpuSeconds()],
          // The floor's auth reads the system's store: its CPU is the store's.
          ["embedded-mongo", processCpu(system).get("embedded-mongo") ?? 0],
        ]),
    },
  };
  type Chain = keyof typeof chains;
  const round = (chain: Chain, seconds: number) =>
    load({
      url: chains[chain].url,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: chains[chain].body,
      connections: CONNECTIONS,
      seconds,
    });
  for (const chain of Object.keys(chains) as Chain[]) await round(chain, 4);

  const rates = new Map<Chain, number[]>();
  const p99s = new Map<Chain, number[]>();
  const cpu = new Map<Chain, Map<string, number[]>>();
  process.stdout.write(
    `token exchange, the system against the libraries' floor, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s\n`,
  );
  for (let index = 0; index < ROUNDS; index += 1) {
    const order: Chain[] = index % 2 === 0 ? ["system", "floor"] : ["floor", "system"];
    for (const chain of order) {
      const before = chains[chain].cpu();
      const generatorBefore = process.cpuUsage();
      const result = await round(chain, SECONDS);
      const generator = process.cpuUsage(generatorBefore);
      if (result.failed > 0) throw new Error(`${chain}: ${result.failed} failed token requests`);
      const requests = result.requestsPerSecond * SECONDS;
      const spent = cpuSpentPerProcess(before, chains[chain].cpu());
      spent.set("load generator", (generator.user + generator.system) / 1e6);
      const perProcess = cpu.get(chain) ?? new Map<string, number[]>();
      cpu.set(chain, perProcess);
      const parts: string[] = [];
      let total = 0;
      for (const [name, seconds] of spent) {
        if (!["gateway", "auth", "embedded-mongo", "load generator"].includes(name)) continue;
        const micros = (seconds * 1e6) / requests;
        total += micros;
        perProcess.set(name, [...(perProcess.get(name) ?? []), micros]);
        parts.push(`${name} ${micros.toFixed(0)}`);
      }
      perProcess.set("total", [...(perProcess.get("total") ?? []), total]);
      rates.set(chain, [...(rates.get(chain) ?? []), result.requestsPerSecond]);
      p99s.set(chain, [...(p99s.get(chain) ?? []), result.p99Ms]);
      process.stdout.write(
        `  round ${index + 1} ${chain.padEnd(6)}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms; CPU µs per request: ${parts.join(", ")}, total ${total.toFixed(0)}\n`,
      );
    }
  }
  const cores = availableParallelism();
  for (const chain of Object.keys(chains) as Chain[]) {
    const perProcess = cpu.get(chain) ?? new Map();
    const total = median(perProcess.get("total") ?? [NaN]);
    process.stdout.write(
      `=> ${chain}: median ${median(rates.get(chain) ?? []).toFixed(0)} req/s, p99 ${median(p99s.get(chain) ?? [])} ms; CPU µs per request (median): ${[
        ...perProcess,
      ]
        .map(([name, values]) => `${name} ${median(values).toFixed(0)}`)
        .join(
          ", ",
        )}; ${cores} cores at this CPU per exchange: at most ${((cores * 1e6) / total).toFixed(0)}/s\n`,
    );
  }
  const systemTotal = median(cpu.get("system")?.get("total") ?? [NaN]);
  const floorTotal = median(cpu.get("floor")?.get("total") ?? [NaN]);
  process.stdout.write(
    `=> the floor is ${((100 * floorTotal) / systemTotal).toFixed(0)} % of the system's CPU per exchange\n`,
  );
} finally {
  for (const floor of floors) floor.child.kill("SIGKILL");
  await system.stop();
}
