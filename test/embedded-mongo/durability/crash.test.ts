import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { MongoClient } from "mongodb";
import { startEmbeddedMongo } from "../../support/embedded-mongo.js";
import { againstRealMongo } from "../conformance/harness.js";

const writerScript = path.join(path.dirname(fileURLToPath(import.meta.url)), "crash-writer.ts");

interface Acks {
  inserted: Set<number>;
  counter: number;
}

/** Runs the writer until it has `count` acknowledged inserts, then calls `crash`. */
async function burstThenCrash(
  uri: string,
  count: number,
  crash: () => Promise<void>,
  firstId = 0,
): Promise<Acks> {
  const writer = spawn(process.execPath, ["--import", "tsx", writerScript, uri, String(firstId)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => writer.once("exit", () => resolve()));
  const acks: Acks = { inserted: new Set(), counter: 0 };
  let pending = "";
  let crashed: Promise<void> | undefined;
  writer.stderr.resume();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`writer reached only ${acks.inserted.size} of ${count} writes`)),
      60_000,
    );
    writer.stdout.on("data", (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        const [kind, value] = line.split(" ");
        if (kind === "insert") acks.inserted.add(Number(value));
        if (kind === "counter") acks.counter = Math.max(acks.counter, Number(value));
      }
      if (!crashed && acks.inserted.size >= count) {
        clearTimeout(timer);
        crashed = crash().then(resolve, reject);
      }
    });
  });
  await crashed;
  // Acknowledgements already in the pipe were acknowledged before the crash: keep reading.
  await new Promise((resolve) => setTimeout(resolve, 200));
  writer.kill("SIGKILL");
  await exited;
  return acks;
}

describe("embedded-mongo durability: crash (kill -9) mid-burst", function () {
  this.timeout(150_000);
  before(function () {
    if (againstRealMongo) this.skip(); // kills the server process: embedded server only
  });

  it("keeps every acknowledged write across SIGKILL, log compaction and restart", async () => {
    // A small compaction threshold makes snapshots happen during the burst too.
    const env = { EMBEDDED_MONGO_COMPACT_BYTES: String(256 * 1024) };
    const first = await startEmbeddedMongo({ env });
    const dataDir = first.dataDir;
    try {
      const acks = await burstThenCrash(first.uri, 1500, () => first.kill("SIGKILL"));
      expect(acks.inserted.size).to.be.at.least(1500);
      const files = fs.readdirSync(dataDir);
      expect(files.some((f) => f.startsWith("snapshot-"))).to.equal(true);

      const second = await startEmbeddedMongo({ dataDir, env });
      const client = new MongoClient(second.uri);
      try {
        const db = client.db("crash");
        const ids = new Set(
          (
            await db
              .collection("docs")
              .find({}, { projection: { _id: 1 } })
              .toArray()
          ).map((d) => Number(d._id)),
        );
        const missing = [...acks.inserted].filter((id) => !ids.has(id));
        expect(missing, "acknowledged inserts lost").to.deep.equal([]);
        const counter = await db.collection("counters").findOne({ _id: "c" as never });
        expect(counter?.n ?? 0).to.be.at.least(acks.counter);

        // Crash again, this time the second incarnation, then check once more.
        const more = await burstThenCrash(second.uri, 500, () => second.kill("SIGKILL"), 1_000_000);
        await client.close();
        const third = await startEmbeddedMongo({ dataDir, env });
        const client3 = new MongoClient(third.uri);
        try {
          const docs = client3.db("crash").collection("docs");
          const all = new Set((await docs.find({}).toArray()).map((d) => Number(d._id)));
          const lost = [...acks.inserted, ...more.inserted].filter((id) => !all.has(id));
          expect(lost, "acknowledged inserts lost after the second crash").to.deep.equal([]);
        } finally {
          await client3.close();
          await third.stop();
        }
      } finally {
        await client.close();
        await second.stop();
      }
    } finally {
      await first.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
