/**
 * Crash-test writer: inserts documents, increments a counter and commits two-document
 * transactions as fast as it can through the official driver, printing "insert <id>",
 * "counter <value>" and "pair <id>" for each acknowledged write. It is killed (or loses its
 * server) mid-burst. Arguments: <uri> [first id] [payload bytes].
 */
import { MongoClient } from "mongodb";

const uri = process.argv[2];
const client = new MongoClient(uri, { serverSelectionTimeoutMS: 2000, retryWrites: false });
await client.connect();
const db = client.db("crash");
const docs = db.collection("docs");
const counters = db.collection("counters");
const pairsA = db.collection("pairs_a");
const pairsB = db.collection("pairs_b");
const lanes = 4;
let next = Number(process.argv[3] ?? 0);
const payload = "x".repeat(Number(process.argv[4] ?? 200));

/** Both documents or neither: recovery must never show half of this transaction. */
async function pair(id: number): Promise<void> {
  const session = client.startSession();
  try {
    session.startTransaction();
    await pairsA.insertOne({ _id: id as never, payload }, { session });
    await pairsB.insertOne({ _id: id as never, payload }, { session });
    await session.commitTransaction();
    process.stdout.write(`pair ${id}\n`);
  } finally {
    await session.endSession().catch(() => {});
  }
}

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
    if (id % 10 === 5) await pair(id);
  }
}

await Promise.all(Array.from({ length: lanes }, lane)).catch(() => {
  process.exit(0);
});
