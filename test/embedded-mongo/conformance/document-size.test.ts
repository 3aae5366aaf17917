import { expect } from "chai";
import { BSON } from "mongodb";
import { errorOf, useConformanceDb } from "./harness.js";

/** mongod's limit on a stored document (`maxBsonObjectSize`). */
const MAX = 16 * 1024 * 1024;

/** A document of exactly `size` BSON bytes. */
function docOfSize(id: string, size: number): { _id: string; s: string } {
  const overhead = BSON.calculateObjectSize({ _id: id, s: "" });
  return { _id: id, s: "a".repeat(size - overhead) };
}

describe("embedded-mongo conformance: document size limit", function () {
  this.timeout(60_000);
  const state = useConformanceDb("docsize");
  const coll = () => state.db.collection<{ _id: string; s: string; t?: string }>("big");

  it("advertises 16 MiB as maxBsonObjectSize", async () => {
    const hello = await state.db.admin().command({ hello: 1 });
    expect(hello.maxBsonObjectSize).to.equal(MAX);
  });

  it("stores and returns a document of exactly 16 MiB", async () => {
    const doc = docOfSize("max", MAX);
    expect(BSON.calculateObjectSize(doc)).to.equal(MAX);
    await coll().insertOne(doc);
    const back = await coll().findOne({ _id: "max" });
    expect(back?.s.length).to.equal(doc.s.length);
    expect(BSON.calculateObjectSize(back!)).to.equal(MAX);
  });

  it("refuses an insert one byte past the limit, storing nothing", async () => {
    const error = await errorOf(() => coll().insertOne(docOfSize("over", MAX + 1)));
    expect(error.code).to.equal(2);
    expect(error.message).to.match(/object to insert too large/);
    expect(await coll().countDocuments({ _id: "over" })).to.equal(0);
  });

  it("refuses an update that would grow a document past the limit, leaving it unchanged", async () => {
    const error = await errorOf(() =>
      coll().updateOne({ _id: "max" }, { $set: { t: "grows past the limit" } }),
    );
    // 17419 up to MongoDB 7.0, BSONObjectTooLarge (10334) since.
    expect([17419, 10334]).to.include(error.code);
    expect(error.message).to.match(/larger than 16777216/);
    const back = await coll().findOne({ _id: "max" }, { projection: { t: 1 } });
    expect(back).to.deep.equal({ _id: "max" });
  });

  it("returns a result larger than 16 MB in batches that each fit a reply", async () => {
    const c = state.db.collection<{ _id: number; s: string }>("many_big");
    for (let i = 0; i < 24; i++) await c.insertOne({ _id: i, s: String(i).padEnd(1_000_000, "z") });
    const back = await c.find({}).sort({ _id: 1 }).toArray();
    expect(back.map((d) => d._id)).to.deep.equal(Array.from({ length: 24 }, (_, i) => i));
    expect(back.every((d, i) => d.s === String(i).padEnd(1_000_000, "z"))).to.equal(true);
  });

  it("refuses a replacement past the limit inside a transaction", async () => {
    const session = state.client.startSession();
    try {
      session.startTransaction();
      const error = await errorOf(() =>
        coll().replaceOne({ _id: "max" }, { s: "b".repeat(MAX) }, { session }),
      );
      expect([17419, 10334]).to.include(error.code);
      await session.abortTransaction().catch(() => {});
    } finally {
      await session.endSession();
    }
    const back = await coll().findOne(
      { _id: "max" },
      { projection: { s: { $substr: ["$s", 0, 1] } } },
    );
    expect(back?.s).to.equal("a");
  });
});
