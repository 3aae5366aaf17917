import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { BSON, type Collection, type Document, MongoClient } from "mongodb";
import { type EmbeddedMongoHandle, startEmbeddedMongo } from "../../support/embedded-mongo.js";
import { againstRealMongo } from "../conformance/harness.js";

const MiB = 1024 * 1024;
const gen = (n: number): string => String(n).padStart(8, "0");
const snapshotFile = (n: number): string => `snapshot-${gen(n)}.bson`;
const walFile = (n: number): string => `wal-${gen(n)}.log`;

/** A string of `length` characters that differs per `seed`. */
function text(seed: number, length: number): string {
  return `${seed}:`.padEnd(length, String.fromCharCode(97 + (seed % 26)));
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("embedded-mongo durability: snapshots of any size", function () {
  this.timeout(120_000);
  let dataDir: string;
  const running: EmbeddedMongoHandle[] = [];
  const clients: MongoClient[] = [];

  before(function () {
    if (againstRealMongo) this.skip(); // data-directory behaviour of the embedded server only
  });
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "embedded-mongo-snapshot-"));
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    for (const mongo of running.splice(0)) await mongo.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(env: Record<string, string> = {}): Promise<Collection<Document>> {
    const mongo = await startEmbeddedMongo({ dataDir, env });
    running.push(mongo);
    const client = new MongoClient(mongo.uri);
    clients.push(client);
    return client.db("big").collection("docs");
  }

  async function stop(): Promise<void> {
    for (const client of clients.splice(0)) await client.close();
    for (const mongo of running.splice(0)) await mongo.stop();
  }

  const files = (): string[] => fs.readdirSync(dataDir).sort();
  const sizeOf = (file: string): number => fs.statSync(path.join(dataDir, file)).size;
  const dataFiles = (): string[] =>
    files().filter((f) => /^(wal-\d+\.log|snapshot-\d+\.bson)$/.test(f));

  it("compacts 1,000 documents of 40 KB with compaction every 1 MiB (the issue's repro)", async () => {
    const env = { EMBEDDED_MONGO_COMPACT_BYTES: String(MiB) };
    let docs = await start(env);
    for (let i = 0; i < 1000; i++) await docs.insertOne({ _id: i as never, pad: text(i, 40_000) });
    expect(await docs.countDocuments()).to.equal(1000);
    await stop();
    // Compacted again and again: one snapshot and one log are left, and the log is below the
    // threshold (1 MiB, or the snapshot's size when larger) plus the record that passed it.
    const [snapshot, wal, ...more] = dataFiles();
    expect(more).to.deep.equal([]);
    expect(snapshot).to.match(/^snapshot-/);
    expect(Number(/\d+/.exec(snapshot)?.[0])).to.be.greaterThan(2);
    expect(sizeOf(wal)).to.be.lessThan(Math.max(MiB, sizeOf(snapshot)) + 50_000);

    docs = await start(env);
    const back = await docs.find({}).sort({ _id: 1 }).toArray();
    expect(back).to.have.length(1000);
    back.forEach((doc, i) => {
      expect(doc._id).to.equal(i);
      expect(doc.pad === text(i, 40_000), `document ${i} intact`).to.equal(true);
    });
  });

  it("keeps many large documents of mixed sizes through updates, deletes and compactions", async () => {
    const env = { EMBEDDED_MONGO_COMPACT_BYTES: String(MiB) };
    let docs = await start(env);
    const sizes = [1_000, 40_000, 300_000, 1_200_000];
    const expected = new Map<number, string>();
    for (let i = 0; i < 32; i++) {
      const pad = text(i, sizes[i % sizes.length]);
      await docs.insertOne({ _id: i as never, pad });
      expected.set(i, pad);
    }
    for (let i = 0; i < 32; i += 3) {
      const pad = text(1000 + i, sizes[(i + 1) % sizes.length]);
      await docs.updateOne({ _id: i as never }, { $set: { pad } });
      expected.set(i, pad);
    }
    for (let i = 1; i < 32; i += 5) {
      await docs.deleteOne({ _id: i as never });
      expected.delete(i);
    }
    await stop();
    expect(dataFiles().filter((f) => f.startsWith("snapshot-"))).to.have.length(1);

    docs = await start(env);
    const back = new Map((await docs.find({}).toArray()).map((d) => [Number(d._id), d.pad]));
    expect([...back.keys()].sort((a, b) => a - b)).to.deep.equal(
      [...expected.keys()].sort((a, b) => a - b),
    );
    for (const [id, pad] of expected) expect(back.get(id) === pad, `document ${id}`).to.equal(true);
  });

  it("writes a 15 MB document and a 16 MiB one through the log and a snapshot", async () => {
    const env = { EMBEDDED_MONGO_COMPACT_BYTES: String(MiB) };
    let docs = await start(env);
    const fifteen = text(15, 15_000_000);
    // Exactly maxBsonObjectSize, the largest document the server accepts.
    const max = text(16, 16 * MiB - BSON.calculateObjectSize({ _id: "max", s: "" }));
    await docs.insertOne({ _id: "fifteen" as never, s: fifteen });
    await docs.insertOne({ _id: "max" as never, s: max });
    for (let n = 0; n < 50; n++) await docs.insertOne({ _id: n as never });
    await stop();
    // Stopping waited for the running snapshot. Which one ran depends on timing: the one the
    // 15 MB write started, while the 16 MiB one went to the log, or one after both. Together,
    // the newest snapshot and the log after it hold both documents whole.
    const [snapshot, wal] = dataFiles();
    expect(sizeOf(snapshot)).to.be.greaterThan(15_000_000);
    expect(sizeOf(snapshot) + sizeOf(wal)).to.be.greaterThan(15_000_000 + 16 * MiB);

    docs = await start(env);
    const big = new Map(
      (await docs.find({ s: { $exists: true } }).toArray()).map((d) => [String(d._id), d.s]),
    );
    expect([...big.keys()].sort()).to.deep.equal(["fifteen", "max"]);
    expect(big.get("fifteen") === fifteen).to.equal(true);
    expect(big.get("max") === max).to.equal(true);
    expect(await docs.countDocuments({ s: { $exists: false } })).to.equal(50);
  });

  it("keeps serving from its logs while snapshots fail, and compacts once one succeeds", async () => {
    // Directories squatting the temporary names of the first two snapshots make writing
    // them fail (EISDIR, whatever the user's privileges); the third attempt can succeed.
    fs.mkdirSync(path.join(dataDir, `${snapshotFile(1)}.tmp`));
    fs.mkdirSync(path.join(dataDir, `${snapshotFile(2)}.tmp`));
    const env = {
      EMBEDDED_MONGO_COMPACT_BYTES: String(64 * 1024),
      EMBEDDED_MONGO_COMPACT_RETRY_MS: "100",
    };
    let docs = await start(env);
    let acknowledged = 0;
    let sawFailures = false;
    const deadline = Date.now() + 20_000;
    while (!files().includes(snapshotFile(3))) {
      expect(Date.now(), "no successful snapshot in time").to.be.lessThan(deadline);
      await docs.insertOne({ _id: acknowledged as never, pad: text(acknowledged, 2_000) });
      acknowledged++;
      const now = files();
      if (now.includes(walFile(2)) && !now.includes(snapshotFile(1))) sawFailures = true;
    }
    // Two failed attempts left their logs behind; the store went on acknowledging writes.
    expect(sawFailures, "logs of failed attempts kept").to.equal(true);
    expect(await docs.countDocuments()).to.equal(acknowledged);
    // The successful snapshot replaces everything before it.
    await until(
      () => dataFiles().join() === [snapshotFile(3), walFile(3)].join(),
      "older files deleted",
    );
    await docs.insertOne({ _id: "after" as never });
    await stop();

    docs = await start(env);
    expect(await docs.countDocuments()).to.equal(acknowledged + 1);
    expect(await docs.findOne({ _id: 7 as never })).to.deep.include({ pad: text(7, 2_000) });
  });

  it("starts and serves when its start-up snapshot cannot be written, and retries", async () => {
    let docs = await start();
    for (let i = 0; i < 100; i++) await docs.insertOne({ _id: i as never, pad: text(i, 3_000) });
    await stop();
    expect(dataFiles()).to.deep.equal([walFile(0)]);
    fs.mkdirSync(path.join(dataDir, `${snapshotFile(1)}.tmp`));
    // The retry waits long enough that a loaded machine still sees the failed attempt's files
    // before the retry replaces them (at 100 ms it sometimes did not).
    const env = {
      EMBEDDED_MONGO_COMPACT_BYTES: String(64 * 1024),
      EMBEDDED_MONGO_COMPACT_RETRY_MS: "600",
    };
    // The log is past the threshold: start-up tries a snapshot, which fails.
    docs = await start(env);
    expect(await docs.countDocuments()).to.equal(100);
    expect(files()).to.include(walFile(1));
    expect(files()).not.to.include(snapshotFile(1));
    // The retry comes without any write (an idle store restarted on a long log).
    await until(() => files().includes(snapshotFile(2)), "the retried snapshot");
    await docs.insertOne({ _id: "retry" as never });
    await stop();
    docs = await start(env);
    expect(await docs.countDocuments()).to.equal(101);
  });

  it("abandons a snapshot failing mid-write without leaving its temporary file", async () => {
    const env = {
      EMBEDDED_MONGO_COMPACT_BYTES: String(3 * MiB),
      EMBEDDED_MONGO_COMPACT_RETRY_MS: "100",
      EMBEDDED_MONGO_TEST_FAILPOINTS: "snapshot.record@4:fail",
    };
    let docs = await start(env);
    let n = 0;
    while (!files().includes(walFile(1))) {
      await docs.insertOne({ _id: n as never, pad: text(n, 20_000) });
      n++;
    }
    // Records 1-3 (meta, collection, the first 1 MiB of documents) were written, then it failed.
    await until(() => !files().some((f) => f.endsWith(".tmp")), "the temporary file removed");
    expect(files()).not.to.include(snapshotFile(1));
    await new Promise((resolve) => setTimeout(resolve, 150));
    while (!files().includes(snapshotFile(2))) {
      await docs.insertOne({ _id: n as never, pad: text(n, 20_000) });
      n++;
    }
    await stop();
    docs = await start();
    expect(await docs.countDocuments()).to.equal(n);
  });
});
