import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { MongoClient } from "mongodb";
import { startEmbeddedMongo } from "../../support/embedded-mongo.js";
import { againstRealMongo } from "../conformance/harness.js";
import { expectRecovered, startWriter } from "./writer-process.js";

const gen = (n: number): string => String(n).padStart(8, "0");

/**
 * kill -9 at each step of a compaction, while a writer keeps acknowledging inserts, counter
 * increments and two-document transactions: the server kills itself at a test fail point
 * (EMBEDDED_MONGO_TEST_FAILPOINTS), the data directory is checked to be in the state that
 * step leaves, then a restart must show every acknowledged write and no half transaction.
 */
describe("embedded-mongo durability: kill -9 during a snapshot", function () {
  this.timeout(120_000);
  let dataDir: string;

  before(function () {
    if (againstRealMongo) this.skip(); // kills the server process: embedded server only
  });
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "embedded-mongo-snapcrash-"));
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const has = (file: string): boolean => fs.existsSync(path.join(dataDir, file));

  // The first compaction starts once the log passes 1 MiB: its snapshot has a few records
  // (documents go 1 MiB to a record), and the writer goes on writing into the new log.
  const cases: Array<{ point: string; left: string; expectFiles: () => void }> = [
    {
      point: "compaction.rotated",
      left: "a new, empty log and no snapshot",
      expectFiles: () => {
        expect(has(`wal-${gen(1)}.log`)).to.equal(true);
        expect(has(`snapshot-${gen(1)}.bson.tmp`)).to.equal(false);
      },
    },
    {
      point: "snapshot.record@4",
      left: "a partly written temporary snapshot",
      expectFiles: () => {
        expect(has(`snapshot-${gen(1)}.bson.tmp`)).to.equal(true);
        expect(has(`snapshot-${gen(1)}.bson`)).to.equal(false);
      },
    },
    {
      point: "snapshot.synced",
      left: "a complete temporary snapshot, not renamed",
      expectFiles: () => {
        expect(has(`snapshot-${gen(1)}.bson.tmp`)).to.equal(true);
        expect(has(`snapshot-${gen(1)}.bson`)).to.equal(false);
      },
    },
    {
      point: "snapshot.renamed",
      left: "the new snapshot beside the log it replaces",
      expectFiles: () => {
        expect(has(`snapshot-${gen(1)}.bson`)).to.equal(true);
        expect(has(`wal-${gen(0)}.log`)).to.equal(true);
      },
    },
  ];

  for (const { point, left, expectFiles } of cases) {
    it(`at ${point} (${left}): every acknowledged write survives`, async () => {
      const env = { EMBEDDED_MONGO_COMPACT_BYTES: String(1024 * 1024) };
      const first = await startEmbeddedMongo({
        dataDir,
        env: { ...env, EMBEDDED_MONGO_TEST_FAILPOINTS: `${point}:crash` },
      });
      const writer = startWriter(first.uri, { payloadBytes: 4_000 });
      // The writer exits when its server is gone: the fail point killed it.
      const died = await Promise.race([
        writer.exited.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 60_000)),
      ]);
      await first.kill("SIGKILL");
      await writer.stop();
      expect(died, "the server reached the fail point").to.equal(true);
      expect(fs.existsSync(path.join(dataDir, "mongod.lock")), "not a clean stop").to.equal(true);
      expect(writer.acks.inserted.size).to.be.greaterThan(200);
      expect(writer.acks.pairs.size).to.be.greaterThan(0);
      expectFiles();

      const second = await startEmbeddedMongo({ dataDir, env });
      try {
        await expectRecovered(second.uri, writer.acks);
        // And the recovered store compacts and restarts normally.
        const client = new MongoClient(second.uri);
        const docs = client.db("crash").collection<{ _id: number; pad: string }>("docs");
        const pad = "y".repeat(4_000);
        for (let i = 0; !has(`snapshot-${gen(2)}.bson`); i++) {
          await docs.insertMany(
            Array.from({ length: 50 }, (_, j) => ({ _id: -1 - i * 50 - j, pad })),
          );
        }
        await client.close();
      } finally {
        await second.stop();
      }
      const third = await startEmbeddedMongo({ dataDir, env });
      try {
        await expectRecovered(third.uri, writer.acks);
      } finally {
        await third.stop();
      }
    });
  }
});
