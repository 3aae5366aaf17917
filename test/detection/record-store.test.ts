/**
 * The record chunks of a session (collection `session_records`) against the real store: written
 * under a lease epoch and fenced like every other write under a lease, read back in order.
 */
import { expect } from "chai";
import { MongoClient } from "mongodb";
import type { RepRecord, SummaryRecords } from "../../movespec/index.js";
import {
  chunkRecords,
  createRecordStore,
  RECORDS_PER_CHUNK,
  type RecordStore,
} from "../../services/detection/store/record-store.js";
import { type EmbeddedMongoHandle, startEmbeddedMongo } from "../support/embedded-mongo.js";

const rep = (count: number): RepRecord => ({
  count,
  start_t: count,
  end_t: count + 0.5,
  score: 100,
  violations: [],
  metrics: { duration: 0.5, tempo: [0.5], phase_time: {}, signals: {} },
});
const records = (from: number, n: number): SummaryRecords => ({
  reps: Array.from({ length: n }, (_, i) => rep(from + i)),
  holds: [],
});

describe("detection record store", function () {
  this.timeout(30_000);
  let mongo: EmbeddedMongoHandle;
  let client: MongoClient;
  let store: RecordStore;

  before(async () => {
    mongo = await startEmbeddedMongo();
    client = new MongoClient(mongo.uri);
    store = createRecordStore(client.db("record_store_test"));
    await store.ensureIndexes();
  });

  after(async () => {
    await client?.close();
    await mongo?.stop();
  });

  it("reads back the chunks below the count in order, and says how many are missing", async () => {
    expect(await store.save("s1", 0, 1, [records(1, 2), records(3, 2)])).to.equal(true);
    expect(await store.save("s1", 2, 1, [records(5, 1)])).to.equal(true);
    expect(await store.list("s1", 2)).to.deep.equal({
      chunks: [records(1, 2), records(3, 2)],
      missing: 0,
    });
    expect((await store.list("s1", 5)).missing).to.equal(2);
    expect(await store.list("s1", 0)).to.deep.equal({ chunks: [], missing: 0 });
    await store.removeAll("s1");
    expect((await store.list("s1", 3)).missing).to.equal(3);
  });

  it("lets a newer lease overwrite a chunk nobody counted yet, and never an older one", async () => {
    // Epoch 4 wrote chunk 0 and died before its checkpoint; epoch 5 resumes and writes its own.
    expect(await store.save("s2", 0, 4, [records(1, 3)])).to.equal(true);
    expect(await store.save("s2", 0, 5, [records(1, 1)])).to.equal(true);
    // The replica at epoch 4 is still running somewhere: it cannot write over epoch 5's chunk.
    expect(await store.save("s2", 0, 4, [records(1, 3)])).to.equal(false);
    expect((await store.list("s2", 1)).chunks).to.deep.equal([records(1, 1)]);
  });

  it("splits records into chunks of at most RECORDS_PER_CHUNK", () => {
    const chunks = chunkRecords([records(1, RECORDS_PER_CHUNK), records(1000, 1)]);
    expect(chunks.map((chunk) => chunk.reps.length)).to.deep.equal([RECORDS_PER_CHUNK, 1]);
    expect(chunks[1].reps[0].count).to.equal(1000);
    expect(chunkRecords([])).to.deep.equal([]);
  });
});
