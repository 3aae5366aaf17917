/**
 * The record chunks of a session (collection `session_records`) against the real store: written
 * under a lease epoch and fenced like every other write under a lease, read back in order.
 */

import type { RepRecord, SummaryRecords } from "@movement-detection/movespec";
import { expect } from "chai";
import { MongoClient } from "mongodb";
import {
  chunkRecords,
  createRecordStore,
  RECORD_BYTES_PER_READ,
  RECORDS_PER_CHUNK,
  type RecordStore,
  readSize,
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
  /** Commands the store was sent (command monitoring), by name. */
  const sent: string[] = [];

  before(async () => {
    mongo = await startEmbeddedMongo();
    client = new MongoClient(mongo.uri, { monitorCommands: true });
    client.on("commandStarted", (event) => sent.push(event.commandName));
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

  it("writes several sessions' chunks in one command, each fenced: a fenced one says false, the others are written", async () => {
    // s4's chunk 1 was written by a newer lease holder (epoch 7).
    expect(await store.save("s4", 1, 7, [records(9, 1)])).to.equal(true);
    sent.length = 0;
    const written = await store.saveMany([
      { sessionId: "s3", first: 0, epoch: 2, chunks: [records(1, 2), records(3, 1)] },
      { sessionId: "s4", first: 0, epoch: 6, chunks: [records(1, 1), records(2, 1)] },
      { sessionId: "s5", first: 4, epoch: 1, chunks: [records(5, 1)] },
    ]);
    expect(written).to.deep.equal([true, false, true]);
    expect(sent).to.deep.equal(["update"]);
    expect((await store.list("s3", 2)).chunks).to.deep.equal([records(1, 2), records(3, 1)]);
    expect((await store.list("s4", 2)).chunks).to.deep.equal([records(1, 1), records(9, 1)]);
    expect((await store.list("s5", 5)).chunks).to.deep.equal([records(5, 1)]);
    expect(await store.saveMany([])).to.deep.equal([]);
  });

  it("reads a long live session's many small chunks back in two round trips", async () => {
    // 20 minutes of live squats: a checkpoint every 5 s, a repetition or two in each.
    const written = Array.from({ length: 240 }, (_, i) => records(2 * i + 1, 1 + (i % 2)));
    for (let i = 0; i < written.length; i += 40) {
      expect(await store.save("long", i, 1, written.slice(i, i + 40))).to.equal(true);
    }
    sent.length = 0;
    expect(await store.list("long", written.length)).to.deep.equal({ chunks: written, missing: 0 });
    expect(sent.filter((name) => name === "find" || name === "getMore")).to.deep.equal([
      "find",
      "find",
    ]);
    // Missing chunks anywhere (the sweeper settling what a crash left) are counted, order kept.
    await client
      .db("record_store_test")
      .collection("session_records")
      .deleteMany({
        _id: { $in: ["long/0", "long/100", "long/239"] } as never,
      });
    const { chunks, missing } = await store.list("long", 241);
    expect(missing).to.equal(4);
    expect(chunks).to.deep.equal(written.filter((_, i) => i !== 0 && i !== 100 && i !== 239));
  });

  it("reads full chunks a few at a time, so that no read parses much more than its byte budget", async () => {
    // A replay's chunks are full: about 56 KB of JSON each.
    const full = Array.from({ length: 30 }, (_, i) =>
      records(i * RECORDS_PER_CHUNK + 1, RECORDS_PER_CHUNK),
    );
    expect(await store.save("replay", 0, 1, full)).to.equal(true);
    sent.length = 0;
    expect((await store.list("replay", full.length)).chunks).to.deep.equal(full);
    const chunkBytes = JSON.stringify(full[0]).length;
    const perRead = Math.floor(RECORD_BYTES_PER_READ / chunkBytes);
    expect(perRead).to.be.within(2, 16);
    // The first read (8 chunks) learns their size; then perRead at a time.
    const reads = sent.filter((name) => name === "find" || name === "getMore");
    expect(reads).to.have.length(1 + Math.ceil((full.length - 8) / perRead));
    expect(reads.every((name) => name === "find")).to.equal(true);
  });

  it("sizes a read from the chunks' average size, within bounds", () => {
    expect(readSize(0)).to.equal(8);
    expect(readSize(Number.NaN)).to.equal(8);
    expect(readSize(RECORD_BYTES_PER_READ)).to.equal(1);
    expect(readSize(10 * RECORD_BYTES_PER_READ)).to.equal(1);
    expect(readSize(RECORD_BYTES_PER_READ / 10)).to.equal(10);
    expect(readSize(1)).to.equal(4096);
  });

  it("splits records into chunks of at most RECORDS_PER_CHUNK", () => {
    const chunks = chunkRecords([records(1, RECORDS_PER_CHUNK), records(1000, 1)]);
    expect(chunks.map((chunk) => chunk.reps.length)).to.deep.equal([RECORDS_PER_CHUNK, 1]);
    expect(chunks[1].reps[0].count).to.equal(1000);
    expect(chunkRecords([])).to.deep.equal([]);
  });
});
