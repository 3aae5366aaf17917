/**
 * The embedded store's TTL monitor against a backlog: thousands of expired documents go in one
 * pass, in batches, and other clients are served between the batches (a pass that deleted them
 * all in one turn of the event loop held every client for its whole length).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { MongoClient } from "mongodb";
import {
  createEmbeddedMongoServer,
  type EmbeddedMongoServer,
} from "../../services/embedded-mongo/embedded-mongo-server.js";
import { authenticatedUri } from "../../services/embedded-mongo/security/client-credentials.js";
import { TTL_BATCH_SIZE } from "../../services/embedded-mongo/ttl-monitor.js";
import { againstRealMongo } from "./conformance/harness.js";

const DAY_MS = 86_400_000;
const EXPIRED = 8 * TTL_BATCH_SIZE;

describe("embedded-mongo TTL monitor", function () {
  this.timeout(30_000);
  let dataDir: string;
  let server: EmbeddedMongoServer;
  let client: MongoClient;

  before(async function () {
    if (againstRealMongo) this.skip(); // the embedded store's monitor, in process
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "embedded-mongo-ttl-"));
    // Never on its own during the test: each pass is the test's.
    server = createEmbeddedMongoServer({ dataDir, ttlIntervalMs: 3_600_000 });
    client = new MongoClient(authenticatedUri(await server.start()));
  });

  after(async () => {
    await client?.close();
    await server?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("deletes a backlog of thousands in one pass, serving others between batches", async () => {
    const sessions = client.db("ttl").collection("sessions");
    await sessions.createIndex({ ended_at: 1 }, { expireAfterSeconds: 30 * 86_400 });
    await sessions.createIndex({ project_id: 1, status: 1 });
    const now = Date.now();
    const summary = "r".repeat(4000);
    const docs = (count: number, endedAt: (i: number) => Date | undefined) =>
      Array.from({ length: count }, (_, i) => ({
        project_id: `p${i % 7}`,
        status: "completed",
        terminal_outcome: summary,
        ...(endedAt(i) ? { ended_at: endedAt(i) } : {}),
      }));
    for (let i = 0; i < EXPIRED; i += 1000) {
      await sessions.insertMany(docs(1000, (j) => new Date(now - 31 * DAY_MS - i - j)));
    }
    // Kept: ended within the retention, and still active (no ended_at).
    await sessions.insertMany(docs(50, () => new Date(now - 29 * DAY_MS)));
    await sessions.insertMany(docs(50, () => undefined));

    // Timer turns that ran while the pass went on: other clients' turns, in a real store.
    let turns = 0;
    const ticker = setInterval(() => {
      turns += 1;
    }, 1);
    const deleted = await server.sweepExpired();
    clearInterval(ticker);

    expect(deleted).to.equal(EXPIRED);
    expect(await sessions.countDocuments()).to.equal(100);
    expect(await sessions.countDocuments({ ended_at: { $exists: false } })).to.equal(50);
    // Eight batches, so at least a turn between most of them (one turn at most without batches).
    expect(turns).to.be.at.least(EXPIRED / TTL_BATCH_SIZE - 2);
    // The next pass finds nothing left to do.
    expect(await server.sweepExpired()).to.equal(0);
  });
});
