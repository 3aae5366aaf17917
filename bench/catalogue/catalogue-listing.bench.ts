/**
 * Anonymous catalogue listing and search through the gateway (run on demand, never in `npm test`):
 *
 *   node --import tsx bench/catalogue/catalogue-listing.bench.ts            # listing cache on (default)
 *   BENCH_LIST_CACHE_MS=0 node --import tsx bench/catalogue/catalogue-listing.bench.ts   # cache off
 *
 * The whole system (embedded store, services, gateway) with 10,000 public MoveSpecs seeded through
 * the catalogue's gRPC, then autocannon in this process (the load generator shares the 2 cores),
 * 10 keep-alive connections, 5 s per round, 3 rounds alternated between scenarios, medians:
 * - bare Koa: a Koa app (own process) answering a real listing page as JSON: the baseline;
 * - listing: GET /api/movespecs (recent, 20 per page);
 * - listing, varied: 3 sorts x 10 offsets x 2 page sizes, cycled;
 * - search: 8 different `q`, cycled.
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { EntrySnapshotSchema, Visibility } from "@movement-detection/proto/catalogue/v1";
import { newId } from "@movement-detection/shared/ids";
import { startProcess } from "../../deploy/local/child-process.js";
import { catalogueClient } from "../../test/movespecs/support/api.js";
import { median } from "../../test/support/statistics.js";
import { startTestSystem } from "../../test/support/system.js";
import { type LoadResult, load } from "../support/http-load.js";

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 10_000);
const ROUNDS = 3;
const SECONDS = 5;
const CONNECTIONS = 10;
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const MOVES = [
  "squat",
  "lunge",
  "plank",
  "curl",
  "pushup",
  "jack",
  "raise",
  "bridge",
  "row",
  "press",
];
const WORDS = [
  "deep",
  "slow",
  "tempo",
  "pause",
  "single",
  "wide",
  "narrow",
  "weighted",
  "beginner",
  "hold",
];

const cacheMs = process.env.BENCH_LIST_CACHE_MS;
const system = await startTestSystem({
  env: { LOG_LEVEL: "info" },
  serviceEnv: cacheMs === undefined ? {} : { catalogue: { CATALOGUE_LIST_CACHE_MS: cacheMs } },
});
let bare: ReturnType<typeof startProcess> | undefined;
try {
  const catalogue = catalogueClient(system);
  const projectId = newId();
  const started = Date.now();
  for (let start = 0; start < ENTRIES; start += 500) {
    const entries = Array.from({ length: Math.min(500, ENTRIES - start) }, (_, k) => {
      const i = start + k;
      const move = MOVES[i % MOVES.length];
      const word = WORDS[Math.floor(i / MOVES.length) % WORDS.length];
      return create(EntrySnapshotSchema, {
        movespecId: newId(),
        projectId,
        organizationId: projectId,
        name: `${word} ${move} ${i}`,
        description: `A ${word} ${move} for the catalogue benchmark, number ${i}.`,
        visibility: Visibility.PUBLIC,
        createdAt: timestampFromDate(new Date(started - i * 1000)),
        updatedAt: timestampFromDate(new Date(started - i * 1000)),
        revision: 1,
      });
    });
    await catalogue.syncEntries({ entries });
  }
  console.log(`seeded ${ENTRIES} public MoveSpecs in ${Date.now() - started} ms`);

  const page = await (await fetch(`${system.gatewayUrl}/api/movespecs`)).json();
  const bodyFile = join(tmpdir(), `bench-catalogue-page-${process.pid}.json`);
  writeFileSync(bodyFile, JSON.stringify(page));
  bare = startProcess({
    name: "bare-koa",
    entry: join(REPO_ROOT, "bench/catalogue/bare-koa-server.ts"),
    cwd: REPO_ROOT,
    env: { ...process.env, BARE_BODY_FILE: bodyFile },
    sink: () => undefined,
  });
  const barePort = Number((await bare.waitFor(["serving"], 10_000)).port);

  const varied: string[] = [];
  for (const sort of ["recent", "stars", "name"]) {
    for (let offset = 0; offset < 10; offset += 1) {
      for (const limit of [20, 50])
        varied.push(`/api/movespecs?sort=${sort}&limit=${limit}&offset=${offset * 500}`);
    }
  }
  const queries = [
    "squat",
    "deep lunge",
    "plank hold",
    "tempo",
    "curl 42",
    "weighted row",
    "bridge",
    "press",
  ];
  const scenarios: { name: string; url: string; paths: string[] }[] = [
    {
      name: "bare Koa JSON route (baseline)",
      url: `http://127.0.0.1:${barePort}`,
      paths: ["/"],
    },
    { name: "GET /api/movespecs", url: system.gatewayUrl, paths: ["/api/movespecs"] },
    { name: "GET /api/movespecs, 3 sorts x 20 pages", url: system.gatewayUrl, paths: varied },
    {
      name: "GET /api/movespecs?q=..., 8 searches",
      url: system.gatewayUrl,
      paths: queries.map((q) => `/api/movespecs?q=${encodeURIComponent(q)}`),
    },
  ];

  for (const scenario of scenarios) {
    for (const path of scenario.paths.slice(0, 3)) {
      const response = await fetch(`${scenario.url}${path}`);
      if (response.status !== 200) {
        throw new Error(`${path}: ${response.status} ${(await response.text()).slice(0, 300)}`);
      }
    }
  }

  const results = new Map<string, LoadResult[]>();
  for (const scenario of scenarios) {
    await load({ ...scenario, connections: CONNECTIONS, seconds: 2 }); // warm-up
    results.set(scenario.name, []);
  }
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const scenario of scenarios) {
      const result = await load({ ...scenario, connections: CONNECTIONS, seconds: SECONDS });
      if (result.failed > 0) {
        // Show why: the last warnings and errors of every process, and one request's answer.
        const probe = await fetch(`${scenario.url}${scenario.paths[0]}`).catch((e) => e);
        const problems = system.logs.filter(
          (entry) =>
            typeof entry.line !== "object" ||
            ["warn", "error", "fatal"].includes(String(entry.line.level)),
        );
        console.error(JSON.stringify(problems.slice(-10), null, 1));
        console.error(probe instanceof Response ? `${probe.status} ${await probe.text()}` : probe);
        throw new Error(`${result.failed} failed requests in ${scenario.name}`);
      }
      results.get(scenario.name)?.push(result);
    }
  }

  const baseline = median((results.get(scenarios[0].name) ?? []).map((r) => r.requestsPerSecond));
  console.log(
    `\n${ENTRIES} public MoveSpecs, listing cache ${cacheMs === undefined ? "default (2000 ms)" : `${cacheMs} ms`}, ` +
      `${CONNECTIONS} connections, ${ROUNDS} x ${SECONDS} s, medians\n`,
  );
  console.log("| scenario | req/s | p50 ms | p99 ms | vs bare Koa |");
  console.log("|---|---:|---:|---:|---:|");
  for (const scenario of scenarios) {
    const runs = results.get(scenario.name) ?? [];
    const rps = median(runs.map((r) => r.requestsPerSecond));
    console.log(
      `| ${scenario.name} | ${Math.round(rps)} | ${median(runs.map((r) => r.p50Ms))} | ${median(runs.map((r) => r.p99Ms))} | ${(rps / baseline).toFixed(2)} |`,
    );
  }
} finally {
  await bare?.stop(5000);
  await system.stop();
}
