import { expect } from "chai";
import { againstRealMongo, errorOf, useConformanceDb } from "./conformance/harness.js";

/** What the embedded server deliberately does not do: each answers an error naming it. */
describe("embedded-mongo: unsupported features fail loudly", () => {
  before(function () {
    if (againstRealMongo) this.skip(); // real MongoDB supports these
  });
  const state = useConformanceDb("unsupported");
  const coll = () => state.db.collection("u");

  const cases: Array<[string, () => Promise<unknown>, number, RegExp]> = [
    [
      "$where (server-side JavaScript)",
      () => coll().find({ $where: "true" }).toArray(),
      2,
      /\$where/,
    ],
    [
      "$text search",
      () =>
        coll()
          .find({ $text: { $search: "x" } })
          .toArray(),
      2,
      /\$text/,
    ],
    ["text indexes", () => coll().createIndex({ body: "text" }), 115, /text/],
    ["2dsphere indexes", () => coll().createIndex({ at: "2dsphere" }), 115, /2dsphere/],
    [
      "non-simple collation",
      () =>
        coll()
          .find({}, { collation: { locale: "fr" } })
          .toArray(),
      2,
      /collation/,
    ],
    [
      "capped collections",
      () => state.db.createCollection("capped", { capped: true, size: 1000 }),
      115,
      /capped/,
    ],
    [
      "$out",
      () =>
        coll()
          .aggregate([{ $out: "elsewhere" }])
          .toArray(),
      115,
      /\$out/,
    ],
    [
      "$merge",
      () =>
        coll()
          .aggregate([{ $merge: { into: "x" } }])
          .toArray(),
      115,
      /\$merge/,
    ],
    [
      "change streams",
      () =>
        coll()
          .aggregate([{ $changeStream: {} }])
          .toArray(),
      115,
      /\$changeStream/,
    ],
    ["tailable cursors", () => state.db.command({ find: "u", tailable: true }), 2, /tailable/],
    [
      "authentication mechanisms other than SCRAM-SHA-256",
      () =>
        state.db.command({
          saslStart: 1,
          mechanism: "SCRAM-SHA-1",
          payload: Buffer.from("n,,n=someone,r=abcdefghijkl"),
        }),
      334,
      /SCRAM-SHA-1 which is not enabled/,
    ],
  ];

  for (const [feature, run, code, mentions] of cases) {
    it(`refuses ${feature}`, async () => {
      const error = await errorOf(run);
      expect(error.code, error.message).to.equal(code);
      expect(error.message).to.match(mentions);
    });
  }

  describe("nesting deeper than 100 levels, as MongoDB refuses it", () => {
    /** A document nested `depth` levels deep (itself the first). */
    const nested = (id: string, depth: number) => {
      let value: unknown = 1;
      for (let level = 2; level <= depth; level += 1) value = { a: value };
      return { _id: id as never, v: value };
    };

    it("takes 100 levels and refuses 101 (BadValue), storing nothing", async () => {
      await coll().insertOne(nested("depth-100", 100));
      const error = await errorOf(() => coll().insertOne(nested("depth-101", 101)));
      expect(error.code, error.message).to.equal(2);
      expect(error.message).to.include("nesting depth");
      expect(await coll().countDocuments({ _id: "depth-101" as never })).to.equal(0);
    });

    it("refuses 10,000 levels without running out of stack, and the document is not readable", async () => {
      const error = await errorOf(() => coll().insertOne(nested("depth-10000", 10_000)));
      expect(error.code, error.message).to.equal(2);
      expect(await coll().countDocuments({ _id: "depth-10000" as never })).to.equal(0);
    });

    it("refuses an update that would nest a value deeper", async () => {
      await coll().insertOne({ _id: "shallow" as never });
      const error = await errorOf(() =>
        coll().updateOne({ _id: "shallow" as never }, { $set: { v: nested("x", 101) } }),
      );
      expect(error.code, error.message).to.equal(2);
      expect(await coll().findOne({ _id: "shallow" as never })).to.deep.equal({ _id: "shallow" });
    });
  });

  describe("the field name __proto__ (documents here are JavaScript objects)", () => {
    const withProto = () => JSON.parse('{"a":1,"__proto__":{"polluted":"yes"}}');
    const attempts: [string, () => Promise<unknown>][] = [
      ["an insert", () => coll().insertOne(withProto())],
      ["a $set path", () => coll().updateMany({}, { $set: { "__proto__.polluted": "yes" } })],
      ["a $set value", () => coll().updateMany({}, { $set: { nested: withProto() } })],
      ["a $rename target", () => coll().updateMany({}, { $rename: { a: "__proto__.polluted" } })],
      ["a replacement", () => coll().replaceOne({ _id: "plain" as never }, withProto())],
      [
        "an upsert's filter",
        () =>
          coll().updateOne({ "__proto__.polluted": "yes" }, { $set: { b: 1 } }, { upsert: true }),
      ],
      [
        "a pipeline update",
        () => coll().updateMany({}, [{ $set: { "__proto__.polluted": "yes" } }]),
      ],
    ];
    for (const [what, run] of attempts) {
      it(`refuses it in ${what} (BadValue), and no document gains a field from it`, async () => {
        await coll().updateOne({ _id: "plain" as never }, { $set: { a: 1 } }, { upsert: true });
        const error = await errorOf(run);
        expect(error.code, error.message).to.equal(2);
        expect(error.message).to.include("__proto__");
        // Had a path reached Object.prototype, every document would now match this.
        expect(await coll().find({ polluted: "yes" }).toArray()).to.deep.equal([]);
      });
    }

    it("names a JavaScript object inherits (constructor, toString) are ordinary fields", async () => {
      await coll().insertOne({ _id: "inherits" as never, a: 1 });
      await coll().updateOne(
        { _id: "inherits" as never },
        { $set: { "constructor.prototype.x": 1, "hasOwnProperty.y": 2 }, $inc: { toString: 3 } },
      );
      expect(await coll().findOne({ _id: "inherits" as never })).to.deep.equal({
        _id: "inherits",
        a: 1,
        constructor: { prototype: { x: 1 } },
        hasOwnProperty: { y: 2 },
        toString: 3,
      });
    });
  });

  it("refuses arithmetic on an int64 beyond 2^53 instead of corrupting it", async () => {
    const { Long } = await import("mongodb");
    const big = Long.fromString("9223372036854775000");
    await coll().insertOne({ _id: "big" as never, v: big });
    const error = await errorOf(() =>
      coll().updateOne({ _id: "big" as never }, { $inc: { v: 1 } }),
    );
    expect(error.code).to.equal(2);
    expect(error.message).to.include("int64");
    expect(String((await coll().findOne({ _id: "big" as never }))?.v)).to.equal(big.toString());
  });

  it("refuses updates with an operator on a non-numeric BSON value instead of corrupting it", async () => {
    await coll().insertOne({ _id: "n" as never, v: 1 });
    const error = await errorOf(() =>
      coll().updateOne({ _id: "n" as never }, { $inc: { v: "x" as never } }),
    );
    expect(error.code).to.be.a("number");
    expect((await coll().findOne({ _id: "n" as never }))?.v).to.equal(1);
  });
});
