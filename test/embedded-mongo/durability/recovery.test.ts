import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { MongoClient } from "mongodb";
import {
  createEmbeddedMongoServer,
  type EmbeddedMongoServerOptions,
} from "../../../services/embedded-mongo/embedded-mongo-server.js";
import { authenticatedUri } from "../../../services/embedded-mongo/security/client-credentials.js";
import { startEmbeddedMongo } from "../../support/embedded-mongo.js";
import { againstRealMongo } from "../conformance/harness.js";

/** Starts an in-process server, runs `fn` with a connected client, then stops both. */
async function withServer(
  options: EmbeddedMongoServerOptions,
  fn: (client: MongoClient) => Promise<void>,
): Promise<void> {
  const server = createEmbeddedMongoServer(options);
  const uri = authenticatedUri(await server.start());
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
  try {
    await fn(client);
  } finally {
    await client.close();
    await server.stop();
  }
}

function walFile(dir: string): string {
  const wal = fs.readdirSync(dir).find((f) => f.startsWith("wal-"));
  if (!wal) throw new Error(`no log in ${dir}`);
  return path.join(dir, wal);
}

describe("embedded-mongo durability: data directory", function () {
  this.timeout(30_000);
  let dataDir: string;

  before(function () {
    if (againstRealMongo) this.skip(); // data-directory behaviour of the embedded server only
  });
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "embedded-mongo-recovery-"));
  });
  afterEach(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps documents, indexes and drops across a restart", async () => {
    await withServer({ dataDir }, async (client) => {
      const db = client.db("app");
      await db.collection("users").createIndex({ email: 1 }, { unique: true });
      await db.collection("users").insertMany([{ email: "a" }, { email: "b" }, { email: "c" }]);
      await db.collection("users").updateOne({ email: "b" }, { $set: { name: "Bee" } });
      await db.collection("users").deleteOne({ email: "c" });
      await db.collection("scratch").insertOne({ x: 1 });
      await db.collection("scratch").drop();
    });
    await withServer({ dataDir }, async (client) => {
      const users = client.db("app").collection("users");
      expect(
        await users
          .find({}, { projection: { _id: 0 } })
          .sort({ email: 1 })
          .toArray(),
      ).to.deep.equal([{ email: "a" }, { email: "b", name: "Bee" }]);
      const error = await users.insertOne({ email: "a" }).catch((e) => e);
      expect(error.code).to.equal(11000);
      const names = (await client.db("app").listCollections().toArray()).map((c) => c.name);
      expect(names).to.deep.equal(["users"]);
    });
  });

  it("acknowledges writes under fsync 'always' and with writeConcern j:true", async () => {
    await withServer({ dataDir, fsync: "always" }, async (client) => {
      const c = client.db("app").collection("c");
      await Promise.all(Array.from({ length: 20 }, (_, i) => c.insertOne({ i })));
      await c.insertOne({ i: 20 }, { writeConcern: { w: 1, j: true } });
    });
    await withServer({ dataDir }, async (client) => {
      expect(await client.db("app").collection("c").countDocuments()).to.equal(21);
    });
  });

  it("cuts a torn last log record and keeps everything before it", async () => {
    await withServer({ dataDir }, async (client) => {
      await client
        .db("app")
        .collection("c")
        .insertMany([{ n: 1 }, { n: 2 }]);
    });
    const file = walFile(dataDir);
    const goodSize = fs.statSync(file).size;
    // A record header promising 100 bytes, followed by only 10: a write cut short by a crash.
    const torn = Buffer.alloc(18);
    torn.writeUInt32LE(100, 0);
    fs.appendFileSync(file, torn);
    await withServer({ dataDir }, async (client) => {
      expect(await client.db("app").collection("c").countDocuments()).to.equal(2);
      await client.db("app").collection("c").insertOne({ n: 3 });
    });
    expect(fs.statSync(walFile(dataDir)).size).to.be.greaterThan(goodSize);
    await withServer({ dataDir }, async (client) => {
      expect(await client.db("app").collection("c").countDocuments()).to.equal(3);
    });
  });

  it("refuses to start on a log damaged in the middle, naming the file", async () => {
    await withServer({ dataDir }, async (client) => {
      const c = client.db("app").collection("c");
      await c.insertOne({ n: 1 });
      await c.insertOne({ n: 2 });
    });
    const file = walFile(dataDir);
    const bytes = fs.readFileSync(file);
    bytes[8 + 8 + 20] ^= 0xff; // inside the first record's payload
    fs.writeFileSync(file, bytes);
    const server = createEmbeddedMongoServer({ dataDir });
    const error = await server.start().catch((e: Error) => e);
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.match(/corrupt data file .*wal-/);
    // Nothing was thrown away: the damaged file is still there, whole.
    expect(fs.statSync(file).size).to.equal(bytes.length);
  });

  it("writes a snapshot, compacts the log and recovers from both", async () => {
    const workload = async (client: MongoClient) => {
      const c = client.db("app").collection("c");
      await c.createIndex({ k: 1 });
      for (let i = 0; i < 20; i++) {
        await c.insertMany(
          Array.from({ length: 50 }, (_, j) => ({ k: i * 50 + j, pad: "p".repeat(50) })),
        );
      }
      await c.deleteMany({ k: { $lt: 100 } });
    };
    // The same writes without compaction: the whole log.
    const uncompactedDir = fs.mkdtempSync(path.join(os.tmpdir(), "embedded-mongo-uncompacted-"));
    let wholeLog: number;
    try {
      await withServer({ dataDir: uncompactedDir }, workload);
      wholeLog = fs.statSync(walFile(uncompactedDir)).size;
    } finally {
      fs.rmSync(uncompactedDir, { recursive: true, force: true });
    }
    await withServer({ dataDir, compactBytes: 16 * 1024 }, workload);
    const files = fs.readdirSync(dataDir);
    expect(files.filter((f) => f.startsWith("snapshot-"))).to.have.length(1);
    expect(files.filter((f) => f.startsWith("wal-"))).to.have.length(1);
    // What is left in the log depends on when the last snapshot started (the next one waits for
    // as many log bytes as the last snapshot holds): only the start of the log is sure to be gone.
    expect(fs.statSync(walFile(dataDir)).size).to.be.below(wholeLog - 16 * 1024);
    await withServer({ dataDir }, async (client) => {
      const c = client.db("app").collection("c");
      expect(await c.countDocuments()).to.equal(900);
      const explained = await c.find({ k: 500 }).explain("executionStats");
      expect(explained.executionStats.totalDocsExamined).to.equal(1);
    });
  });

  it("refuses to start on a damaged snapshot", async () => {
    await withServer({ dataDir, compactBytes: 4 * 1024 }, async (client) => {
      await client
        .db("app")
        .collection("c")
        .insertMany(Array.from({ length: 200 }, (_, i) => ({ i, pad: "p".repeat(40) })));
    });
    const snapshot = fs.readdirSync(dataDir).find((f) => f.startsWith("snapshot-"))!;
    const file = path.join(dataDir, snapshot);
    const bytes = fs.readFileSync(file);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    fs.writeFileSync(file, bytes);
    const error = await createEmbeddedMongoServer({ dataDir })
      .start()
      .catch((e: Error) => e);
    expect((error as Error).message).to.match(/corrupt data file .*snapshot-/);
  });

  it("lets only one server open a data directory", async () => {
    const first = createEmbeddedMongoServer({ dataDir });
    await first.start();
    try {
      const inProcess = await createEmbeddedMongoServer({ dataDir })
        .start()
        .catch((e: Error) => e);
      expect((inProcess as Error).message).to.include("already in use");
      const child = await startEmbeddedMongo({ dataDir }).catch((e: Error) => e);
      expect(child).to.be.instanceOf(Error);
      expect((child as Error).message).to.include("already in use");
    } finally {
      await first.stop();
    }
    // Released on stop: a new server can open it.
    const again = createEmbeddedMongoServer({ dataDir });
    await again.start();
    await again.stop();
  });

  it("stops cleanly on SIGTERM: writes flushed, lock released", async () => {
    const mongo = await startEmbeddedMongo({ dataDir });
    const client = new MongoClient(mongo.uri);
    await client.db("app").collection("c").insertOne({ kept: true });
    await client.close();
    expect(fs.existsSync(path.join(dataDir, "mongod.lock"))).to.equal(true);
    await mongo.stop();
    expect(fs.existsSync(path.join(dataDir, "mongod.lock"))).to.equal(false);
    await withServer({ dataDir }, async (again) => {
      expect(await again.db("app").collection("c").countDocuments({ kept: true })).to.equal(1);
    });
  });

  it("expires documents through a TTL index", async () => {
    const server = createEmbeddedMongoServer({ dataDir });
    const uri = authenticatedUri(await server.start());
    const client = new MongoClient(uri);
    try {
      const c = client.db("app").collection("sessions");
      await c.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
      await c.createIndex({ createdAt: 1 }, { expireAfterSeconds: 3600 });
      const past = new Date(Date.now() - 1000);
      const future = new Date(Date.now() + 3_600_000);
      await c.insertMany([
        { name: "expired", expiresAt: past },
        { name: "fresh", expiresAt: future },
        { name: "no date", expiresAt: "not a date" },
        { name: "old", createdAt: new Date(Date.now() - 7_200_000) },
        { name: "recent", createdAt: new Date() },
      ]);
      expect(await server.sweepExpired()).to.equal(2);
      const left = (await c.find({}).toArray()).map((d) => d.name).sort();
      expect(left).to.deep.equal(["fresh", "no date", "recent"]);
    } finally {
      await client.close();
      await server.stop();
    }
  });
});
