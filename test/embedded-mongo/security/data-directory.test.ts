/**
 * The data directory is its owner's only: 0700, every file 0600 (log, snapshot, lock, users,
 * credentials), also when an older version left them open; and the store listens on loopback
 * unless told otherwise.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { MongoClient } from "mongodb";
import { startEmbeddedMongo } from "../../support/embedded-mongo.js";
import { againstRealMongo } from "../conformance/harness.js";

const mode = (file: string): string => (fs.statSync(file).mode & 0o777).toString(8);

/**
 * Mode of every file in `dir`. A file gone since the listing is skipped: the store compacts in
 * the background, and a temporary snapshot can be renamed between readdir and stat.
 */
function modes(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const file of fs.readdirSync(dir)) {
    try {
      found[file] = mode(path.join(dir, file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return found;
}

describe("embedded-mongo data directory permissions", function () {
  this.timeout(60_000);
  let parent: string;
  let dataDir: string;
  before(function () {
    if (againstRealMongo) this.skip(); // the embedded server's files
  });
  beforeEach(() => {
    parent = fs.mkdtempSync(path.join(os.tmpdir(), "embedded-mongo-modes-"));
    fs.chmodSync(parent, 0o755);
    dataDir = path.join(parent, "nested", "mongo");
  });
  afterEach(() => fs.rmSync(parent, { recursive: true, force: true }));

  it("creates the directory 0700 and every file 0600, snapshots included", async () => {
    // A tiny compaction threshold: the inserts below write a snapshot and a second log.
    const mongo = await startEmbeddedMongo({
      dataDir,
      env: { EMBEDDED_MONGO_COMPACT_BYTES: "1024" },
    });
    try {
      const client = new MongoClient(mongo.uri);
      try {
        const coll = client.db("app").collection("c");
        for (let i = 0; i < 20; i++) await coll.insertOne({ i, pad: "x".repeat(100) });
      } finally {
        await client.close();
      }
      expect(mode(dataDir)).to.equal("700");
      expect(mode(path.dirname(dataDir))).to.equal("700"); // created by the server too
      const files = modes(dataDir);
      expect(Object.keys(files)).to.include.members([
        "mongod.lock",
        "users.json",
        "credentials.json",
      ]);
      expect(Object.keys(files).some((f) => f.startsWith("snapshot-"))).to.equal(true);
      expect(Object.keys(files).some((f) => f.startsWith("wal-"))).to.equal(true);
      for (const [file, m] of Object.entries(files)) expect(m, file).to.equal("600");
    } finally {
      await mongo.stop();
    }
  });

  it("tightens a directory and files left open by an older version, and says so", async () => {
    const first = await startEmbeddedMongo({ dataDir });
    const client = new MongoClient(first.uri);
    await client.db("app").collection("c").insertOne({ before: true });
    await client.close();
    await first.stop();
    // What a version before this one left behind: 0755 and 0644 (and a stray file).
    fs.writeFileSync(path.join(dataDir, "notes.txt"), "left by hand", { mode: 0o644 });
    fs.chmodSync(dataDir, 0o755);
    for (const file of fs.readdirSync(dataDir)) fs.chmodSync(path.join(dataDir, file), 0o644);

    const second = await startEmbeddedMongo({ dataDir });
    try {
      expect(mode(dataDir)).to.equal("700");
      for (const [file, m] of Object.entries(modes(dataDir))) expect(m, file).to.equal("600");
      const warning = second
        .output()
        .split("\n")
        .find((line) => line.includes("permissions tightened"));
      expect(warning, second.output()).to.be.a("string");
      expect(JSON.parse(warning!).tightened).to.include.members([".", "users.json", "notes.txt"]);
      const again = new MongoClient(second.uri);
      try {
        expect(await again.db("app").collection("c").countDocuments({ before: true })).to.equal(1);
      } finally {
        await again.close();
      }
    } finally {
      await second.stop();
    }
  });
});

describe("embedded-mongo listening address", function () {
  this.timeout(30_000);
  before(function () {
    if (againstRealMongo) this.skip();
  });

  const external = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && !a.internal && a.family === "IPv4")?.address;
  const connect = (port: number, host: string) =>
    new Promise<string>((resolve) => {
      const socket = net.connect(port, host, () => {
        socket.destroy();
        resolve("connected");
      });
      socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
    });

  it("listens on 127.0.0.1 by default: the machine's other addresses refuse connections", async function () {
    const mongo = await startEmbeddedMongo();
    try {
      const ready = JSON.parse(
        mongo
          .output()
          .split("\n")
          .find((l) => l.includes('"msg":"ready"'))!,
      );
      expect(ready.host).to.equal("127.0.0.1");
      expect(await connect(mongo.port, "127.0.0.1")).to.equal("connected");
      if (!external) this.skip(); // this machine has no non-loopback IPv4 address
      expect(await connect(mongo.port, external)).to.equal("ECONNREFUSED");
    } finally {
      await mongo.stop();
    }
  });

  it("listens on every address only when EMBEDDED_MONGO_HOST says so (the control)", async function () {
    if (!external) this.skip();
    const mongo = await startEmbeddedMongo({ env: { EMBEDDED_MONGO_HOST: "0.0.0.0" } });
    try {
      expect(await connect(mongo.port, external)).to.equal("connected");
    } finally {
      await mongo.stop();
    }
  });
});
