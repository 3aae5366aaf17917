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
