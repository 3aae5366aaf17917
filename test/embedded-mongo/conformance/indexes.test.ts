import { expect } from "chai";
import type { Document } from "mongodb";
import { errorOf, useConformanceDb } from "./harness.js";

function stats(explained: Document): { docs: number; keys: number } {
  const s = explained.executionStats;
  return { docs: s.totalDocsExamined, keys: s.totalKeysExamined };
}

describe("embedded-mongo conformance: indexes", () => {
  const state = useConformanceDb("indexes");
  const coll = (name: string) => state.db.collection(name);

  it("creates, lists and drops indexes", async () => {
    const c = coll("ix_admin");
    expect(await c.createIndex({ a: 1 })).to.equal("a_1");
    expect(
      await c.createIndexes([
        { key: { b: -1, c: 1 }, name: "bc" },
        { key: { d: 1 }, unique: true },
      ]),
    ).to.deep.equal(["bc", "d_1"]);
    const listed = await c.listIndexes().toArray();
    expect(listed.map((i) => i.name)).to.deep.equal(["_id_", "a_1", "bc", "d_1"]);
    expect(listed[2].key).to.deep.equal({ b: -1, c: 1 });
    expect(listed[3].unique).to.equal(true);
    expect(await c.createIndex({ a: 1 })).to.equal("a_1");
    await c.dropIndex("a_1");
    const error = await errorOf(() => c.dropIndex("a_1"));
    expect(error.code).to.equal(27);
    await c.dropIndexes();
    expect((await c.listIndexes().toArray()).map((i) => i.name)).to.deep.equal(["_id_"]);
  });

  it("rejects a conflicting index definition under an existing name", async () => {
    const c = coll("ix_conflict");
    await c.createIndex({ a: 1 }, { name: "same" });
    const error = await errorOf(() => c.createIndex({ a: 1 }, { name: "same", unique: true }));
    expect([85, 86]).to.include(error.code);
  });

  it("enforces unique indexes with keyPattern and keyValue", async () => {
    const c = coll("ix_unique");
    await c.createIndex({ tenant: 1, email: 1 }, { unique: true });
    await c.insertOne({ tenant: "t", email: "a@x" });
    await c.insertOne({ tenant: "u", email: "a@x" });
    const error = await errorOf(() => c.insertOne({ tenant: "t", email: "a@x" }));
    expect(error.code).to.equal(11000);
    expect(error.keyPattern).to.deep.equal({ tenant: 1, email: 1 });
    expect(error.keyValue).to.deep.equal({ tenant: "t", email: "a@x" });
    const viaUpdate = await errorOf(() => c.updateOne({ tenant: "u" }, { $set: { tenant: "t" } }));
    expect(viaUpdate.code).to.equal(11000);
    expect(await c.countDocuments({ tenant: "u" })).to.equal(1);
  });

  it("refuses to build a unique index over duplicates", async () => {
    const c = coll("ix_unique_build");
    await c.insertMany([{ a: 1 }, { a: 1 }]);
    const error = await errorOf(() => c.createIndex({ a: 1 }, { unique: true }));
    expect(error.code).to.equal(11000);
  });

  it("lets a sparse unique index hold many documents without the field", async () => {
    const c = coll("ix_sparse");
    await c.createIndex({ handle: 1 }, { unique: true, sparse: true });
    await c.insertMany([{ x: 1 }, { x: 2 }, { handle: "h" }]);
    expect((await errorOf(() => c.insertOne({ handle: "h" }))).code).to.equal(11000);
    expect(await c.countDocuments({ handle: "h" })).to.equal(1);
  });

  it("applies a partial unique index only to matching documents", async () => {
    const c = coll("ix_partial");
    await c.createIndex(
      { slug: 1 },
      { unique: true, partialFilterExpression: { published: true } },
    );
    await c.insertMany([
      { slug: "s", published: false },
      { slug: "s", published: false },
      { slug: "s", published: true },
    ]);
    expect((await errorOf(() => c.insertOne({ slug: "s", published: true }))).code).to.equal(11000);
  });

  it("accepts TTL indexes", async () => {
    const c = coll("ix_ttl");
    await c.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
    const [ttl] = (await c.listIndexes().toArray()).filter((i) => i.name === "expiresAt_1");
    expect(ttl.expireAfterSeconds).to.equal(0);
  });

  describe("index use", () => {
    before(async function () {
      this.timeout(30_000);
      const c = coll("ix_use");
      const docs = Array.from({ length: 2000 }, (_, i) => ({
        _id: i,
        sku: `sku-${i}`,
        price: i % 100,
        status: i % 4 === 0 ? "published" : "draft",
        created: i,
        tokens: [`w${i % 50}`, `v${i % 7}`, "all"],
      }));
      await c.insertMany(docs as never[]);
      await c.createIndex({ sku: 1 });
      await c.createIndex({ price: 1 });
      await c.createIndex({ status: 1, created: -1 });
      await c.createIndex({ tokens: 1 });
    });

    it("uses an index for equality without scanning the collection", async () => {
      const explained = await coll("ix_use").find({ sku: "sku-1234" }).explain("executionStats");
      expect(stats(explained).docs).to.equal(1);
    });

    it("uses an index for a range", async () => {
      const c = coll("ix_use");
      const explained = await c.find({ price: { $gte: 10, $lt: 12 } }).explain("executionStats");
      expect(explained.executionStats.nReturned).to.equal(40);
      expect(stats(explained).docs).to.equal(40);
    });

    it("serves filter + sort + limit from a compound index", async () => {
      const c = coll("ix_use");
      const page = await c
        .find({ status: "published" })
        .sort({ created: -1 })
        .skip(5)
        .limit(3)
        .toArray();
      expect(page.map((d) => d._id)).to.deep.equal([1976, 1972, 1968]);
      const explained = await c
        .find({ status: "published" })
        .sort({ created: -1 })
        .skip(5)
        .limit(3)
        .explain("executionStats");
      expect(stats(explained).docs).to.be.at.most(8);
    });

    it("uses a multikey index for $all and $in with sort, skip and limit", async () => {
      const c = coll("ix_use");
      const query = { tokens: { $all: ["w7", "v0"] } };
      const expected = Array.from({ length: 2000 }, (_, i) => i)
        .filter((i) => i % 50 === 7 && i % 7 === 0)
        .sort((a, b) => b - a);
      const page = await c.find(query).sort({ created: -1 }).skip(1).limit(2).toArray();
      expect(page.map((d) => d._id)).to.deep.equal(expected.slice(1, 3));
      const explained = await c
        .find(query)
        .sort({ created: -1 })
        .skip(1)
        .limit(2)
        .explain("executionStats");
      expect(stats(explained).docs).to.be.at.most(40);
      const inExplained = await c.find({ tokens: { $in: ["w1", "w2"] } }).explain("executionStats");
      expect(inExplained.executionStats.nReturned).to.equal(80);
      expect(stats(inExplained).docs).to.equal(80);
    });

    it("returns each document once from a multikey index", async () => {
      const c = coll("ix_use");
      expect(await c.countDocuments({ tokens: { $in: ["all", "w3", "v3"] } })).to.equal(2000);
    });
  });
});
