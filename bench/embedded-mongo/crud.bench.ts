/**
 * Benchmark of the embedded MongoDB-compatible server through the official driver, server
 * in process (same event loop as the client, as in the test harness), data directory on
 * disk, default fsync policy ("interval"). Run: node --import tsx bench/embedded-mongo/crud.bench.ts
 *
 * Each figure is the median of 3 rounds after a warm-up; p50/p99 are over the operations of
 * the median round.
 * The baseline is findOne by an indexed field in a 1,000-document collection, same run.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Collection, type Document, MongoClient } from "mongodb";
import { createEmbeddedMongoServer } from "../../services/embedded-mongo/embedded-mongo-server.js";
import { authenticatedUri } from "../../services/embedded-mongo/security/client-credentials.js";

const LARGE = Number(process.env.BENCH_DOCS ?? 100_000);
const SMALL = 1_000;
const OPS = Number(process.env.BENCH_OPS ?? 5_000);
const ROUNDS = 3;

interface Figure {
  name: string;
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
}

function doc(i: number): Document {
  return {
    _id: i,
    sku: `sku-${i}`,
    status: i % 10 === 0 ? "published" : "draft",
    created: new Date(1_700_000_000_000 + i * 1000),
    tokens: [`w${i % 1000}`, `v${i % 37}`, `u${i % 11}`],
    price: i % 500,
    title: `Movement number ${i}`,
  };
}

async function load(c: Collection, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1000) {
    await c.insertMany(Array.from({ length: Math.min(1000, count - i) }, (_, j) => doc(i + j)));
  }
}

async function measure(
  name: string,
  ops: number,
  op: (i: number) => Promise<unknown>,
): Promise<Figure> {
  const rounds: Figure[] = [];
  // Warm-up (JIT, caches), not timed; writes use ids past the measured ones.
  for (let i = 0; i < Math.min(500, ops); i++) await op(ROUNDS * ops + i);
  for (let round = 0; round < ROUNDS; round++) {
    const latencies = new Float64Array(ops);
    const start = process.hrtime.bigint();
    for (let i = 0; i < ops; i++) {
      const t = process.hrtime.bigint();
      await op(round * ops + i);
      latencies[i] = Number(process.hrtime.bigint() - t) / 1e6;
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    latencies.sort();
    rounds.push({
      name,
      opsPerSec: ops / seconds,
      p50Ms: latencies[Math.floor(ops * 0.5)],
      p99Ms: latencies[Math.floor(ops * 0.99)],
    });
  }
  rounds.sort((a, b) => a.opsPerSec - b.opsPerSec);
  return rounds[1];
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "embedded-mongo-bench-"));
  const server = createEmbeddedMongoServer({ dataDir });
  const uri = authenticatedUri(await server.start());
  const client = new MongoClient(uri);
  const db = client.db("bench");
  const figures: Figure[] = [];
  const random = (n: number) => Math.floor(Math.random() * n);
  try {
    const small = db.collection("small");
    await small.createIndex({ sku: 1 });
    await load(small, SMALL);
    figures.push(
      await measure(`findOne by _id @${SMALL}`, OPS, () =>
        small.findOne({ _id: random(SMALL) as never }),
      ),
    );
    const baseline = await measure(`findOne by indexed field @${SMALL} (baseline)`, OPS, () =>
      small.findOne({ sku: `sku-${random(SMALL)}` }),
    );
    figures.push(baseline);

    const large = db.collection("large");
    await large.createIndex({ sku: 1 });
    await large.createIndex({ status: 1, created: -1 });
    await large.createIndex({ tokens: 1 });
    const loadStart = Date.now();
    await load(large, LARGE - ROUNDS * OPS);
    const loadSeconds = (Date.now() - loadStart) / 1000;
    figures.push(
      await measure(`insertOne (3 secondary indexes) up to ${LARGE}`, OPS, (i) =>
        large.insertOne(doc(LARGE - ROUNDS * OPS + i)),
      ),
    );
    figures.push(
      await measure(`findOne by _id @${LARGE}`, OPS, () =>
        large.findOne({ _id: random(LARGE) as never }),
      ),
    );
    const indexed = await measure(`findOne by indexed field @${LARGE}`, OPS, () =>
      large.findOne({ sku: `sku-${random(LARGE)}` }),
    );
    figures.push(indexed);
    figures.push(
      await measure(
        `find filter+sort+limit 20 via compound index @${LARGE}`,
        Math.ceil(OPS / 5),
        () =>
          large
            .find({ status: "published" })
            .sort({ created: -1 })
            .skip(random(100))
            .limit(20)
            .toArray(),
      ),
    );
    figures.push(
      await measure(
        `find tokens $all + sort + skip + limit 20 (multikey) @${LARGE}`,
        Math.ceil(OPS / 5),
        () =>
          large
            .find({ tokens: { $all: [`w${random(1000)}`, `u${random(11)}`] } })
            .sort({ title: 1 })
            .skip(5)
            .limit(20)
            .toArray(),
      ),
    );
    figures.push(
      await measure(`updateOne $inc by indexed field @${LARGE}`, OPS, () =>
        large.updateOne({ sku: `sku-${random(LARGE)}` }, { $inc: { price: 1 } }),
      ),
    );

    console.log(`embedded-mongo benchmark: ${os.cpus().length} CPU(s), Node ${process.version}`);
    console.log(
      `bulk load: ${LARGE - ROUNDS * OPS} documents with insertMany(1000) in ${loadSeconds.toFixed(1)} s`,
    );
    console.log("| operation | ops/s | p50 ms | p99 ms |");
    console.log("| --- | ---: | ---: | ---: |");
    for (const f of figures) {
      console.log(
        `| ${f.name} | ${Math.round(f.opsPerSec)} | ${f.p50Ms.toFixed(3)} | ${f.p99Ms.toFixed(3)} |`,
      );
    }
    const ratio = baseline.opsPerSec / indexed.opsPerSec;
    const p50Ratio = indexed.p50Ms / baseline.p50Ms;
    console.log(
      `\nfindOne by indexed field, ${LARGE} vs ${SMALL} documents: time per operation x${ratio.toFixed(2)} (ops/s), x${p50Ratio.toFixed(2)} (p50); goal: at most x2`,
    );
  } finally {
    await client.close();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
