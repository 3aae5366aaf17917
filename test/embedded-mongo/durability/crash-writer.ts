/**
 * Crash-test writer: inserts documents and increments a counter as fast as it can through
 * the official driver, printing "insert <id>" / "counter <value>" for each acknowledged
 * write. It is killed (or loses its server) mid-burst.
 */
import { MongoClient } from "mongodb";

const uri = process.argv[2];
const client = new MongoClient(uri, { serverSelectionTimeoutMS: 2000, retryWrites: false });
await client.connect();
const db = client.db("crash");
const docs = db.collection("docs");
const counters = db.collection("counters");
const lanes = 4;
let next = Number(process.argv[3] ?? 0);
const payload = "x".repeat(200);

async function lane(): Promise<void> {
  for (;;) {
    const id = next++;
    await docs.insertOne({ _id: id as never, payload, at: new Date() });
    process.stdout.write(`insert ${id}\n`);
    if (id % 10 === 0) {
      const after = await counters.findOneAndUpdate(
        { _id: "c" as never },
        { $inc: { n: 1 } },
        { upsert: true, returnDocument: "after" },
      );
      process.stdout.write(`counter ${after?.n}\n`);
    }
  }
}

await Promise.all(Array.from({ length: lanes }, lane)).catch(() => {
  process.exit(0);
});
