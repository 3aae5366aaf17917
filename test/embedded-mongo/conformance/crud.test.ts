import { expect } from "chai";
import { Decimal128, type Document, Long, ObjectId } from "mongodb";
import { errorOf, useConformanceDb } from "./harness.js";

describe("embedded-mongo conformance: CRUD", () => {
  const state = useConformanceDb("crud");
  const coll = (name: string) => state.db.collection(name);

  describe("insert", () => {
    it("assigns an ObjectId _id and returns inserted ids", async () => {
      const c = coll("insert_ids");
      const one = await c.insertOne({ a: 1 });
      expect(one.insertedId).to.be.instanceOf(ObjectId);
      const many = await c.insertMany([{ _id: "x" as never, a: 2 }, { a: 3 }]);
      expect(many.insertedCount).to.equal(2);
      expect(many.insertedIds[0]).to.equal("x");
      const stored = await c.findOne({ _id: "x" as never });
      expect(Object.keys(stored!)[0]).to.equal("_id");
    });

    it("rejects a duplicate _id with code 11000", async () => {
      const c = coll("insert_dup");
      await c.insertOne({ _id: 1 as never });
      const error = await errorOf(() => c.insertOne({ _id: 1 as never }));
      expect(error.code).to.equal(11000);
      expect(error.keyPattern).to.deep.equal({ _id: 1 });
      expect(error.keyValue).to.deep.equal({ _id: 1 });
    });

    it("stops an ordered batch at the first error, continues an unordered one", async () => {
      const c = coll("insert_batches");
      const ordered = await errorOf(() =>
        c.insertMany([{ _id: 1 }, { _id: 1 }, { _id: 2 }] as never[], { ordered: true }),
      );
      expect(ordered.code).to.equal(11000);
      expect(await c.countDocuments()).to.equal(1);
      const unordered = await errorOf(() =>
        c.insertMany([{ _id: 3 }, { _id: 1 }, { _id: 4 }] as never[], { ordered: false }),
      );
      expect(unordered.code).to.equal(11000);
      expect(await c.countDocuments()).to.equal(3);
    });

    it("keeps BSON types of stored values", async () => {
      const c = coll("insert_types");
      const doc = {
        _id: new ObjectId(),
        s: "text",
        n: 42,
        f: 1.5,
        big: 2 ** 40,
        d: new Date("2024-01-02T03:04:05.006Z"),
        b: true,
        nul: null,
        arr: [1, "two", { three: 3 }],
        o: { nested: { deep: "yes" } },
      };
      await c.insertOne(doc);
      expect(await c.findOne({ _id: doc._id })).to.deep.equal(doc);
    });
  });

  describe("find", () => {
    before(async () => {
      const docs = Array.from({ length: 250 }, (_, i) => ({
        _id: i,
        n: i,
        group: i % 5,
        name: `item-${String(i).padStart(3, "0")}`,
        tags: i % 2 === 0 ? ["even", `t${i % 3}`] : ["odd"],
        nested: { v: i % 7 },
      }));
      await coll("find").insertMany(docs as never[]);
    });

    it("filters with comparison, logical, element and array operators", async () => {
      const c = coll("find");
      expect(await c.countDocuments({ n: { $gte: 10, $lt: 20 } })).to.equal(10);
      expect(await c.countDocuments({ $or: [{ n: 1 }, { n: 2 }, { n: 999 }] })).to.equal(2);
      expect(await c.countDocuments({ group: { $in: [1, 2] } })).to.equal(100);
      expect(await c.countDocuments({ group: { $nin: [1, 2] } })).to.equal(150);
      expect(await c.countDocuments({ tags: "even" })).to.equal(125);
      expect(await c.countDocuments({ tags: { $all: ["even", "t0"] } })).to.equal(42);
      expect(await c.countDocuments({ "nested.v": 3 })).to.equal(36);
      expect(await c.countDocuments({ missing: { $exists: false } })).to.equal(250);
      expect(await c.countDocuments({ name: /^item-00/ })).to.equal(10);
      expect(await c.countDocuments({ n: { $not: { $gt: 5 } } })).to.equal(6);
      expect(await c.countDocuments({ tags: { $size: 1 } })).to.equal(125);
      expect(
        await c.countDocuments({ $expr: { $eq: ["$n", { $multiply: ["$group", 1] }] } }),
      ).to.equal(5);
    });

    it("sorts, skips and limits", async () => {
      const c = coll("find");
      const page = await c.find({ group: 3 }).sort({ n: -1 }).skip(2).limit(3).toArray();
      expect(page.map((d) => d.n)).to.deep.equal([238, 233, 228]);
      const multi = await c
        .find({ n: { $lt: 10 } })
        .sort({ group: 1, n: -1 })
        .limit(4)
        .toArray();
      expect(multi.map((d) => d.n)).to.deep.equal([5, 0, 6, 1]);
    });

    it("projects with inclusion, exclusion and _id suppression", async () => {
      const c = coll("find");
      const inc = await c.findOne({ _id: 7 as never }, { projection: { name: 1 } });
      expect(inc).to.deep.equal({ _id: 7, name: "item-007" });
      const exc = await c.findOne(
        { _id: 7 as never },
        { projection: { tags: 0, nested: 0, _id: 0 } },
      );
      expect(exc).to.deep.equal({ n: 7, group: 2, name: "item-007" });
      const dotted = await c.findOne(
        { _id: 7 as never },
        { projection: { "nested.v": 1, _id: 0 } },
      );
      expect(dotted).to.deep.equal({ nested: { v: 0 } });
    });

    it("a projection never changes the stored document (nested exclusion)", async () => {
      const c = coll("projection_readonly");
      await c.insertOne({ _id: "a" as never, draft: { s: "text", n: 1 }, list: [1, 2, 3] });
      const projected = await c.findOne({ _id: "a" as never }, { projection: { "draft.s": 0 } });
      expect(projected).to.deep.equal({ _id: "a", draft: { n: 1 }, list: [1, 2, 3] });
      const updated = await c.findOneAndUpdate(
        { _id: "a" as never },
        { $set: { x: 1 } },
        { projection: { "draft.n": 0 }, returnDocument: "after" },
      );
      expect(updated).to.deep.equal({ _id: "a", draft: { s: "text" }, list: [1, 2, 3], x: 1 });
      expect(await c.findOne({ _id: "a" as never })).to.deep.equal({
        _id: "a",
        draft: { s: "text", n: 1 },
        list: [1, 2, 3],
        x: 1,
      });
    });

    it("returns results in batches through getMore and closes cursors", async () => {
      const c = coll("find");
      const cursor = c.find({}, { batchSize: 7 }).sort({ n: 1 });
      const all = await cursor.toArray();
      expect(all).to.have.length(250);
      expect(all[249].n).to.equal(249);
      const reply = await state.db.command({ find: "find", filter: {}, batchSize: 2 });
      const id = reply.cursor.id;
      expect(reply.cursor.firstBatch).to.have.length(2);
      expect(id.toString()).to.not.equal("0");
      const more = await state.db.command({ getMore: id, collection: "find", batchSize: 3 });
      expect(more.cursor.nextBatch).to.have.length(3);
      const killed = await state.db.command({ killCursors: "find", cursors: [id] });
      expect(killed.cursorsKilled.map(String)).to.deep.equal([id.toString()]);
      const error = await errorOf(() => state.db.command({ getMore: id, collection: "find" }));
      expect(error.code).to.equal(43);
    });

    it("batchSize 0 opens a cursor with an empty first batch (find and aggregate)", async () => {
      const found = await state.db.command({ find: "find", filter: {}, batchSize: 0 });
      expect(found.cursor.firstBatch).to.deep.equal([]);
      expect(found.cursor.id.toString()).to.not.equal("0");
      const next = await state.db.command({
        getMore: found.cursor.id,
        collection: "find",
        batchSize: 5,
      });
      expect(next.cursor.nextBatch).to.have.length(5);
      await state.db.command({ killCursors: "find", cursors: [found.cursor.id] });
      const aggregated = await state.db.command({
        aggregate: "find",
        pipeline: [{ $match: {} }],
        cursor: { batchSize: 0 },
      });
      expect(aggregated.cursor.firstBatch).to.deep.equal([]);
      expect(aggregated.cursor.id.toString()).to.not.equal("0");
      await state.db.command({ killCursors: "find", cursors: [aggregated.cursor.id] });
    });

    it("compares int32, int64 and Decimal128 values numerically, and returns them unchanged", async () => {
      const c = coll("find_numeric");
      const big = Long.fromString("9223372036854775000");
      const dec = Decimal128.fromString("2.5");
      await c.insertMany([
        { _id: "big", v: big },
        { _id: "dec", v: dec },
        { _id: "int", v: 7 },
        { _id: "str", v: "9" },
      ] as never[]);
      const ids = async (filter: Document) =>
        (await c.find(filter).sort({ v: 1 }).toArray()).map((d) => d._id);
      expect(await ids({ v: { $gt: 5 } })).to.deep.equal(["int", "big"]);
      expect(await ids({ v: { $lt: 3 } })).to.deep.equal(["dec"]);
      expect(await ids({ v: { $gte: Long.fromString("9223372036854774999") } })).to.deep.equal([
        "big",
      ]);
      expect(await ids({})).to.deep.equal(["dec", "int", "big", "str"]);
      const stored = await c.findOne({ _id: "big" as never });
      expect(stored!.v).to.be.instanceOf(Long);
      expect(String(stored!.v)).to.equal("9223372036854775000");
      expect(String((await c.findOne({ v: dec }))!.v)).to.equal("2.5");
    });

    it("reads $options x (extended) as mongod: layout and # comments ignored, classes kept", async () => {
      const c = coll("find_regex_x");
      await c.createIndex({ name: 1 });
      await c.insertMany([
        { _id: 1, name: "abc" },
        { _id: 2, name: "ab c" },
        { _id: 3, name: "a#b" },
        { _id: 4, name: "ABC" },
      ] as never[]);
      const ids = async (filter: Document) =>
        (await c.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);
      // Anchored, so the planner reads index bounds from the pattern too.
      const extended = "^a b  # the first two letters\n  c$";
      expect(await ids({ name: { $regex: extended, $options: "x" } })).to.deep.equal([1]);
      expect(await ids({ name: { $regex: extended, $options: "xi" } })).to.deep.equal([1, 4]);
      expect(await ids({ name: { $regex: "^ab[ ]c$", $options: "x" } })).to.deep.equal([2]);
      // The regex's own flags count with the options.
      expect(await ids({ name: { $regex: /^a b c$/i, $options: "x" } })).to.deep.equal([1, 4]);
      expect(await ids({ name: { $regex: "^ab\\ c$", $options: "x" } })).to.deep.equal([2]);
      expect(await ids({ name: { $regex: "^a\\#b$", $options: "x" } })).to.deep.equal([3]);
      expect(await ids({ $or: [{ name: { $regex: "^A B C$", $options: "x" } }] })).to.deep.equal([
        4,
      ]);
      const matched = await c
        .aggregate([{ $sort: { _id: 1 } }, { $match: { name: { $regex: "b c", $options: "x" } } }])
        .toArray();
      expect(matched.map((d) => d._id)).to.deep.equal([1]);
      expect(await c.countDocuments({ name: { $regex: "^a b c$", $options: "x" } })).to.equal(1);
      expect(await ids({ name: { $regex: "^a b c$" } })).to.deep.equal([]);
    });

    it("finds nothing in a collection that does not exist", async () => {
      expect(await coll("does_not_exist").find({ a: 1 }).toArray()).to.deep.equal([]);
      expect(await coll("does_not_exist").countDocuments()).to.equal(0);
    });
  });

  describe("update", () => {
    it("refuses an operator on a value of the wrong type, as mongod: an error, nothing changed", async () => {
      const c = coll("update_types");
      const original = { _id: 1, s: "x", o: { p: "q" }, arr: [1], n: 1, z: null };
      await c.insertOne(original as never);
      for (const [update, code] of [
        [{ $inc: { s: 1 } }, 14],
        [{ $inc: { "o.p": 1 } }, 14],
        [{ $inc: { arr: 1 } }, 14],
        [{ $mul: { s: 2 } }, 14],
        [{ $inc: { n: "a" } }, 14],
        [{ $push: { s: 1 } }, 2],
        [{ $set: { "s.t": 1 } }, 28],
        [{ $inc: { "s.t": 1 } }, 28],
        [{ $set: { "z.a": 1 } }, 28],
      ] as const) {
        const error = await errorOf(() => c.updateOne({ _id: 1 as never }, update as never));
        expect(error.code, JSON.stringify(update)).to.equal(code);
        const viaFind = await errorOf(() =>
          c.findOneAndUpdate({ _id: 1 as never }, update as never),
        );
        expect(viaFind.code, JSON.stringify(update)).to.equal(code);
      }
      expect(await c.findOne({ _id: 1 as never })).to.deep.equal(original);
      // The right types still apply, paths created where they are missing.
      await c.updateOne({ _id: 1 as never }, {
        $inc: { n: 2 },
        $push: { arr: 2 },
        $set: { "o.r": 1, "new.deep": 1 },
      } as never);
      expect(await c.findOne({ _id: 1 as never })).to.deep.equal({
        ...original,
        o: { p: "q", r: 1 },
        arr: [1, 2],
        n: 3,
        new: { deep: 1 },
      });
    });

    it("applies the field and array update operators", async () => {
      const c = coll("update_ops");
      await c.insertOne({
        _id: 1 as never,
        a: 1,
        gone: true,
        hi: 5,
        lo: 5,
        list: [1, 2, 3],
        set: ["x"],
        pulls: [1, 2, 1, 3],
      });
      const result = await c.updateOne({ _id: 1 as never }, {
        $set: { "b.c": 2 },
        $unset: { gone: "" },
        $inc: { a: 2 },
        $max: { hi: 9 },
        $min: { lo: 3 },
        $push: { list: { $each: [4, 5], $slice: -4 } },
        $addToSet: { set: { $each: ["x", "y"] } },
        $pull: { pulls: 1 },
        $currentDate: { touched: true },
      } as Document);
      expect(result.matchedCount).to.equal(1);
      expect(result.modifiedCount).to.equal(1);
      const doc = await c.findOne({ _id: 1 as never });
      expect(doc).to.deep.include({ a: 3, hi: 9, lo: 3, b: { c: 2 } });
      expect(doc!.list).to.deep.equal([2, 3, 4, 5]);
      expect(doc!.set).to.deep.equal(["x", "y"]);
      expect(doc!.pulls).to.deep.equal([2, 3]);
      expect(doc!.touched).to.be.instanceOf(Date);
      expect(doc).to.not.have.property("gone");
    });

    it("reports matched but not modified for a no-op update", async () => {
      const c = coll("update_noop");
      await c.insertOne({ _id: 1 as never, a: 1 });
      const result = await c.updateOne({ _id: 1 as never }, { $set: { a: 1 } });
      expect(result.matchedCount).to.equal(1);
      expect(result.modifiedCount).to.equal(0);
    });

    it("updates many documents with multi", async () => {
      const c = coll("update_many");
      await c.insertMany([{ k: 1 }, { k: 1 }, { k: 2 }]);
      const result = await c.updateMany({ k: 1 }, { $set: { seen: true } });
      expect(result.matchedCount).to.equal(2);
      expect(await c.countDocuments({ seen: true })).to.equal(2);
    });

    it("upserts with an $or filter: the update applies to the inserted document", async () => {
      const c = coll("upsert_or");
      const filter = { _id: "lock" as never, $or: [{ owner: "me" }, { expires: { $lte: 10 } }] };
      const result = await c.updateOne(
        filter,
        { $set: { owner: "me", expires: 50 } },
        { upsert: true },
      );
      expect(result.upsertedId).to.equal("lock");
      expect(await c.findOne({})).to.deep.equal({ _id: "lock", owner: "me", expires: 50 });
      const renewed = await c.updateOne(filter, { $set: { expires: 60 } }, { upsert: true });
      expect(renewed).to.include({ matchedCount: 1, modifiedCount: 1 });
      expect(await c.findOne({})).to.deep.equal({ _id: "lock", owner: "me", expires: 60 });
    });

    it("upserts from the filter's equality fields, with $setOnInsert only on insert", async () => {
      const c = coll("update_upsert");
      const first = await c.updateOne(
        { email: "a@x", "profile.kind": "user" },
        { $set: { visits: 1 }, $setOnInsert: { createdBy: "upsert" } },
        { upsert: true },
      );
      expect(first.upsertedCount).to.equal(1);
      expect(first.upsertedId).to.be.instanceOf(ObjectId);
      const doc = await c.findOne({ email: "a@x" });
      expect(doc).to.deep.include({
        email: "a@x",
        profile: { kind: "user" },
        visits: 1,
        createdBy: "upsert",
      });
      const second = await c.updateOne(
        { email: "a@x" },
        { $set: { visits: 2 }, $setOnInsert: { createdBy: "second" } },
        { upsert: true },
      );
      expect(second.upsertedCount).to.equal(0);
      expect(second.modifiedCount).to.equal(1);
      expect(await c.findOne({ email: "a@x" })).to.deep.include({ visits: 2, createdBy: "upsert" });
    });

    it("updates array elements with arrayFilters and the positional operator", async () => {
      const c = coll("update_arrays");
      await c.insertOne({
        _id: 1 as never,
        items: [
          { sku: "a", qty: 1 },
          { sku: "b", qty: 5 },
          { sku: "c", qty: 9 },
        ],
      });
      await c.updateOne(
        { _id: 1 as never },
        { $inc: { "items.$[big].qty": 100 } },
        {
          arrayFilters: [{ "big.qty": { $gte: 5 } }],
        },
      );
      await c.updateOne({ _id: 1 as never, "items.sku": "a" }, { $set: { "items.$.qty": 0 } });
      const doc = await c.findOne({ _id: 1 as never });
      expect(doc!.items.map((i: { qty: number }) => i.qty)).to.deep.equal([0, 105, 109]);
    });

    it("replaces a whole document, keeping _id", async () => {
      const c = coll("update_replace");
      await c.insertOne({ _id: 1 as never, a: 1, b: 2 });
      const result = await c.replaceOne({ _id: 1 as never }, { c: 3 });
      expect(result.modifiedCount).to.equal(1);
      expect(await c.findOne({ _id: 1 as never })).to.deep.equal({ _id: 1, c: 3 });
    });

    it("refuses to change _id (ImmutableField, 66)", async () => {
      const c = coll("update_id");
      await c.insertOne({ _id: 1 as never });
      const error = await errorOf(() => c.updateOne({ _id: 1 as never }, { $set: { _id: 2 } }));
      expect(error.code).to.equal(66);
    });
  });

  describe("delete", () => {
    it("deletes one or many", async () => {
      const c = coll("delete");
      await c.insertMany([{ k: 1 }, { k: 1 }, { k: 1 }, { k: 2 }]);
      expect((await c.deleteOne({ k: 1 })).deletedCount).to.equal(1);
      expect((await c.deleteMany({ k: 1 })).deletedCount).to.equal(2);
      expect((await c.deleteMany({ k: 99 })).deletedCount).to.equal(0);
      expect(await c.countDocuments()).to.equal(1);
    });
  });

  describe("findAndModify", () => {
    it("a projection that cannot be applied fails the command with nothing written", async () => {
      const c = coll("fam_bad_projection");
      await c.insertOne({ _id: "x" as never, a: 1, b: 2 });
      const mixed = { a: 1, b: 0 };
      for (const attempt of [
        () => c.findOneAndDelete({ _id: "x" as never }, { projection: mixed }),
        () => c.findOneAndUpdate({ _id: "x" as never }, { $inc: { a: 1 } }, { projection: mixed }),
        () =>
          c.findOneAndUpdate(
            { _id: "y" as never },
            { $set: { a: 1 } },
            { upsert: true, projection: mixed },
          ),
      ]) {
        const error = await errorOf(attempt);
        expect(error.message).to.match(/exclusion/i);
      }
      expect(await c.find({}).toArray()).to.deep.equal([{ _id: "x", a: 1, b: 2 }]);
    });

    it("returns the document before or after the update", async () => {
      const c = coll("fam");
      await c.insertOne({ _id: 1 as never, n: 1 });
      const before = await c.findOneAndUpdate({ _id: 1 as never }, { $inc: { n: 1 } });
      expect(before).to.deep.equal({ _id: 1, n: 1 });
      const after = await c.findOneAndUpdate(
        { _id: 1 as never },
        { $inc: { n: 1 } },
        { returnDocument: "after", projection: { _id: 0 } },
      );
      expect(after).to.deep.equal({ n: 3 });
    });

    it("upserts and reports the new document", async () => {
      const c = coll("fam_upsert");
      const created = await c.findOneAndUpdate(
        { key: "k" },
        { $setOnInsert: { n: 0 }, $set: { at: 1 } },
        { upsert: true, returnDocument: "after", includeResultMetadata: true },
      );
      expect(created.lastErrorObject?.updatedExisting).to.equal(false);
      expect(created.value).to.deep.include({ key: "k", n: 0, at: 1 });
      const none = await c.findOneAndUpdate({ key: "other" }, { $set: { at: 1 } });
      expect(none).to.equal(null);
    });

    it("picks the first document in sort order, replaces and deletes", async () => {
      const c = coll("fam_sort");
      await c.insertMany([
        { q: 1, p: 3 },
        { q: 1, p: 1 },
        { q: 1, p: 2 },
      ]);
      const replaced = await c.findOneAndReplace(
        { q: 1 },
        { q: 1, p: 10 },
        { sort: { p: 1 }, returnDocument: "before" },
      );
      expect(replaced!.p).to.equal(1);
      const deleted = await c.findOneAndDelete({ q: 1 }, { sort: { p: -1 } });
      expect(deleted!.p).to.equal(10);
      expect((await c.find({}).sort({ p: 1 }).toArray()).map((d) => d.p)).to.deep.equal([2, 3]);
    });
  });

  describe("counting and distinct", () => {
    it("counts with countDocuments and estimatedDocumentCount", async () => {
      const c = coll("counts");
      await c.insertMany(Array.from({ length: 30 }, (_, i) => ({ i, even: i % 2 === 0 })));
      expect(await c.estimatedDocumentCount()).to.equal(30);
      expect(await c.countDocuments({ even: true })).to.equal(15);
      expect(await c.countDocuments({}, { skip: 25 })).to.equal(5);
      expect(await c.countDocuments({}, { limit: 4 })).to.equal(4);
    });

    it("returns distinct values, flattening arrays", async () => {
      const c = coll("distinct");
      await c.insertMany([{ t: ["a", "b"], k: 1 }, { t: "b", k: 2 }, { t: ["c"], k: 2 }, { k: 3 }]);
      expect((await c.distinct("t")).sort()).to.deep.equal(["a", "b", "c"]);
      expect((await c.distinct("t", { k: 2 })).sort()).to.deep.equal(["b", "c"]);
    });
  });

  describe("bulkWrite", () => {
    it("mixes inserts, updates, replaces and deletes", async () => {
      const c = coll("bulk");
      const result = await c.bulkWrite([
        { insertOne: { document: { _id: 1 as never, v: 1 } } },
        { insertOne: { document: { _id: 2 as never, v: 2 } } },
        { updateOne: { filter: { _id: 1 as never }, update: { $set: { v: 10 } } } },
        { updateMany: { filter: {}, update: { $inc: { w: 1 } } } },
        { replaceOne: { filter: { _id: 2 as never }, replacement: { v: 20 } } },
        { updateOne: { filter: { _id: 3 as never }, update: { $set: { v: 3 } }, upsert: true } },
        { deleteOne: { filter: { _id: 2 as never } } },
      ]);
      expect(result.insertedCount).to.equal(2);
      expect(result.matchedCount).to.equal(4);
      expect(result.modifiedCount).to.equal(4);
      expect(result.upsertedCount).to.equal(1);
      expect(result.deletedCount).to.equal(1);
      expect(await c.find({}).sort({ _id: 1 }).toArray()).to.deep.equal([
        { _id: 1, v: 10, w: 1 },
        { _id: 3, v: 3 },
      ]);
    });
  });
});
