import { expect } from "chai";
import { errorOf, useConformanceDb } from "./harness.js";

describe("embedded-mongo conformance: errors", () => {
  const state = useConformanceDb("errors");

  it("answers an unknown command with CommandNotFound (59)", async () => {
    const error = await errorOf(() => state.db.command({ noSuchCommand: 1 }));
    expect(error.code).to.equal(59);
    expect(error.message).to.include("noSuchCommand");
  });

  it("rejects an unknown query operator with BadValue (2), naming it", async () => {
    const error = await errorOf(() =>
      state.db
        .collection("e")
        .find({ a: { $bogus: 1 } })
        .toArray(),
    );
    expect(error.code).to.equal(2);
    expect(error.message).to.include("$bogus");
  });

  it("rejects an unknown update operator with FailedToParse (9)", async () => {
    await state.db.collection("e").insertOne({ a: 1 });
    const error = await errorOf(() =>
      state.db.collection("e").updateOne({}, { $bogus: { a: 1 } } as never),
    );
    expect(error.code).to.equal(9);
    expect(error.message).to.include("$bogus");
  });

  it("rejects conflicting update paths", async () => {
    const error = await errorOf(() =>
      state.db.collection("e").updateOne({}, { $set: { a: 1 }, $inc: { a: 1 } }),
    );
    expect(error.code).to.equal(40);
  });

  it("reports a missing collection on listIndexes as NamespaceNotFound (26)", async () => {
    const error = await errorOf(() => state.db.collection("nope").listIndexes().toArray());
    expect(error.code).to.equal(26);
  });

  it("reports an unknown cursor as CursorNotFound (43)", async () => {
    const { Long } = await import("mongodb");
    const error = await errorOf(() =>
      state.db.command({ getMore: Long.fromNumber(123456789), collection: "e" }),
    );
    expect(error.code).to.equal(43);
  });
});
