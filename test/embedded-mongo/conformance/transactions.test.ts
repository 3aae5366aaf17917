import { expect } from "chai";
import { Long, type MongoServerError } from "mongodb";
import { errorOf, useConformanceDb } from "./harness.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("embedded-mongo conformance: sessions and transactions", () => {
  const state = useConformanceDb("transactions");
  const coll = (name: string) => state.db.collection(name);

  it("commits all writes of withTransaction together", async () => {
    const accounts = coll("tx_commit");
    await accounts.insertMany([
      { _id: "a", balance: 100 },
      { _id: "b", balance: 0 },
    ] as never[]);
    const session = state.client.startSession();
    try {
      await session.withTransaction(async () => {
        await accounts.updateOne({ _id: "a" as never }, { $inc: { balance: -30 } }, { session });
        await accounts.updateOne({ _id: "b" as never }, { $inc: { balance: 30 } }, { session });
        await accounts.insertOne({ _id: "log" as never, moved: 30 }, { session });
      });
    } finally {
      await session.endSession();
    }
    const docs = await accounts.find({}).sort({ _id: 1 }).toArray();
    expect(docs).to.deep.equal([
      { _id: "a", balance: 70 },
      { _id: "b", balance: 30 },
      { _id: "log", moved: 30 },
    ]);
  });

  it("commits a write set whose unique keys swap: checked as the state it leaves, then released", async () => {
    const c = coll("tx_unique_swap");
    await c.createIndex({ k: 1 }, { unique: true });
    await c.insertMany([
      { _id: "a", k: 1 },
      { _id: "b", k: 2 },
      { _id: "c", n: 0 },
    ] as never[]);
    const session = state.client.startSession();
    try {
      await session.withTransaction(async () => {
        await c.updateOne({ _id: "c" as never }, { $inc: { n: 1 } }, { session });
        await c.updateOne({ _id: "b" as never }, { $set: { k: 3 } }, { session });
        await c.updateOne({ _id: "a" as never }, { $set: { k: 2 } }, { session });
        await c.updateOne({ _id: "b" as never }, { $set: { k: 1 } }, { session });
      });
    } finally {
      await session.endSession();
    }
    expect(await c.find({}).sort({ _id: 1 }).toArray()).to.deep.equal([
      { _id: "a", k: 2 },
      { _id: "b", k: 1 },
      { _id: "c", n: 1 },
    ]);
    // The unique index still holds afterwards, and nothing is left locked.
    const duplicate = await errorOf(() => c.insertOne({ _id: "d", k: 1 } as never));
    expect(duplicate.code).to.equal(11000);
    await c.updateOne({ _id: "a" as never }, { $set: { k: 5 } }, { maxTimeMS: 1000 });
    expect((await c.findOne({ _id: "a" as never }))?.k).to.equal(5);
  });

  it("hides uncommitted writes from other readers and shows them inside", async () => {
    const c = coll("tx_isolation");
    await c.insertOne({ _id: 1 as never, v: "old" });
    const session = state.client.startSession();
    try {
      session.startTransaction();
      await c.updateOne({ _id: 1 as never }, { $set: { v: "new" } }, { session });
      await c.insertOne({ _id: 2 as never, v: "added" }, { session });
      await c.deleteOne({ _id: 1 as never, v: "never" }, { session });
      expect(await c.findOne({ _id: 1 as never }, { session })).to.deep.equal({ _id: 1, v: "new" });
      expect(await c.countDocuments({}, { session })).to.equal(2);
      expect(
        (await c.find({}, { session }).sort({ _id: -1 }).toArray()).map((d) => d._id),
      ).to.deep.equal([2, 1]);
      expect(await c.findOne({ _id: 1 as never })).to.deep.equal({ _id: 1, v: "old" });
      expect(await c.findOne({ _id: 2 as never })).to.equal(null);
      expect(await c.countDocuments({})).to.equal(1);
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    expect(await c.countDocuments({})).to.equal(2);
    expect(await c.findOne({ _id: 1 as never })).to.deep.equal({ _id: 1, v: "new" });
  });

  it("reads from one snapshot: commits made by others after the transaction started are not seen", async () => {
    const c = coll("tx_snapshot");
    await c.createIndex({ k: 1 });
    await c.insertMany([
      { _id: 1, k: "a", v: 1 },
      { _id: 2, k: "b", v: 1 },
    ] as never[]);
    const session = state.client.startSession();
    try {
      session.startTransaction();
      expect((await c.findOne({ _id: 1 as never }, { session }))!.v).to.equal(1);
      await c.updateOne({ _id: 1 as never }, { $set: { v: 2, k: "z" } });
      await c.insertOne({ _id: 3 as never, k: "a", v: 1 });
      await c.deleteOne({ _id: 2 as never });
      expect((await c.findOne({ _id: 1 as never }, { session }))!.v).to.equal(1);
      expect((await c.find({ k: "a" }, { session }).toArray()).map((d) => d._id)).to.deep.equal([
        1,
      ]);
      expect(await c.findOne({ _id: 3 as never }, { session })).to.equal(null);
      expect(await c.findOne({ _id: 2 as never }, { session })).to.deep.equal({
        _id: 2,
        k: "b",
        v: 1,
      });
      expect(await c.countDocuments({}, { session })).to.equal(2);
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    expect(await c.countDocuments({})).to.equal(2);
  });

  it("keeps invariants under concurrent transfers and non-transactional writes", async function () {
    this.timeout(60_000);
    const accounts = coll("tx_concurrent");
    const ids = ["a", "b", "c", "d", "e"];
    await accounts.insertMany(ids.map((_id) => ({ _id, balance: 100, touches: 0 })) as never[]);
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const transfer = async () => {
      const from = ids[random(5)];
      const to = ids[(ids.indexOf(from) + 1 + random(4)) % 5];
      const session = state.client.startSession();
      try {
        await session.withTransaction(async () => {
          const source = await accounts.findOne({ _id: from as never }, { session });
          const amount = Math.min(source!.balance, 1 + random(20));
          await accounts.updateOne(
            { _id: from as never },
            { $inc: { balance: -amount } },
            { session },
          );
          await accounts.updateOne(
            { _id: to as never },
            { $inc: { balance: amount } },
            { session },
          );
        });
      } finally {
        await session.endSession();
      }
    };
    const workers = Array.from({ length: 4 }, async () => {
      for (let i = 0; i < 8; i++) await transfer();
    });
    const toucher = (async () => {
      for (let i = 0; i < 20; i++)
        await accounts.updateOne({ _id: ids[i % 5] as never }, { $inc: { touches: 1 } });
    })();
    await Promise.all([...workers, toucher]);
    const all = await accounts.find({}).toArray();
    expect(all.reduce((n, d) => n + d.balance, 0)).to.equal(500);
    expect(all.reduce((n, d) => n + d.touches, 0)).to.equal(20);
    expect(all.every((d) => d.balance >= 0)).to.equal(true);
  });

  it("discards the writes of an aborted transaction", async () => {
    const c = coll("tx_abort");
    const session = state.client.startSession();
    try {
      session.startTransaction();
      await c.insertOne({ _id: 1 as never }, { session });
      await session.abortTransaction();
    } finally {
      await session.endSession();
    }
    expect(await c.countDocuments({})).to.equal(0);
  });

  it("gives a conflicting transaction WriteConflict (112) labelled TransientTransactionError", async () => {
    const c = coll("tx_conflict");
    await c.insertOne({ _id: 1 as never, n: 0 });
    const first = state.client.startSession();
    const second = state.client.startSession();
    try {
      first.startTransaction();
      second.startTransaction();
      await c.updateOne({ _id: 1 as never }, { $inc: { n: 1 } }, { session: first });
      const error = (await errorOf(() =>
        c.updateOne({ _id: 1 as never }, { $inc: { n: 1 } }, { session: second }),
      )) as unknown as MongoServerError;
      expect(error.code).to.equal(112);
      expect(error.hasErrorLabel("TransientTransactionError")).to.equal(true);
      await second.abortTransaction().catch(() => {});
      await first.commitTransaction();
    } finally {
      await first.endSession();
      await second.endSession();
    }
    expect((await c.findOne({ _id: 1 as never }))!.n).to.equal(1);
  });

  it("lets withTransaction retry past a write conflict", async () => {
    const c = coll("tx_retry");
    await c.insertOne({ _id: 1 as never, n: 0 });
    const holder = state.client.startSession();
    const retrier = state.client.startSession();
    try {
      holder.startTransaction();
      await c.updateOne({ _id: 1 as never }, { $inc: { n: 1 } }, { session: holder });
      let attempts = 0;
      const retried = retrier.withTransaction(async () => {
        attempts++;
        await c.updateOne({ _id: 1 as never }, { $inc: { n: 10 } }, { session: retrier });
      });
      await sleep(100);
      await holder.commitTransaction();
      await retried;
      expect(attempts).to.be.greaterThan(1);
    } finally {
      await holder.endSession();
      await retrier.endSession();
    }
    expect((await c.findOne({ _id: 1 as never }))!.n).to.equal(11);
  });

  it("makes a write outside any transaction wait for the transaction holding the document", async () => {
    const c = coll("tx_wait");
    await c.insertOne({ _id: 1 as never, n: 0 });
    const session = state.client.startSession();
    try {
      session.startTransaction();
      await c.updateOne({ _id: 1 as never }, { $inc: { n: 1 } }, { session });
      let done = false;
      const outside = c.updateOne({ _id: 1 as never }, { $inc: { n: 100 } }).then(() => {
        done = true;
      });
      await sleep(150);
      expect(done).to.equal(false);
      await session.commitTransaction();
      await outside;
    } finally {
      await session.endSession();
    }
    expect((await c.findOne({ _id: 1 as never }))!.n).to.equal(101);
  });

  it("gives up waiting for a transaction's document after maxTimeMS (MaxTimeMSExpired, 50)", async () => {
    const c = coll("tx_maxtime");
    await c.insertOne({ _id: 1 as never, n: 0 });
    const session = state.client.startSession();
    try {
      session.startTransaction();
      await c.updateOne({ _id: 1 as never }, { $inc: { n: 1 } }, { session });
      const error = await errorOf(() =>
        state.db.command({
          update: c.collectionName,
          updates: [{ q: { _id: 1 }, u: { $inc: { n: 5 } } }],
          maxTimeMS: 200,
        }),
      );
      expect(error.code).to.equal(50);
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    expect((await c.findOne({ _id: 1 as never }))!.n).to.equal(1);
  });

  it("aborts the transaction when a write in it fails", async () => {
    const c = coll("tx_failed_write");
    await c.insertOne({ _id: 1 as never });
    const session = state.client.startSession();
    try {
      session.startTransaction();
      await c.insertOne({ _id: 2 as never }, { session });
      const error = await errorOf(() => c.insertOne({ _id: 1 as never }, { session }));
      expect(error.code).to.equal(11000);
      const commit = await errorOf(() => session.commitTransaction());
      expect(commit.code).to.equal(251);
    } finally {
      await session.endSession();
    }
    expect(await c.countDocuments({})).to.equal(1);
  });

  it("answers a retried write (same session and txnNumber) without applying it twice", async () => {
    const c = coll("retryable");
    const session = state.client.startSession();
    try {
      const command = {
        update: c.collectionName,
        updates: [{ q: { _id: 1 }, u: { $inc: { n: 1 } }, upsert: true }],
        txnNumber: Long.fromNumber(1_000_000),
      };
      const first = await state.db.command(command, { session });
      const second = await state.db.command(command, { session });
      expect(first.n).to.equal(1);
      expect(second.n).to.equal(1);
    } finally {
      await session.endSession();
    }
    expect(await c.findOne({ _id: 1 as never })).to.deep.equal({ _id: 1, n: 1 });
  });
});
