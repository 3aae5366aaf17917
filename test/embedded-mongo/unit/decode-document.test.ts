import { Binary, BSON, BSONError, BSONSymbol, Code, DBRef, Long, ObjectId } from "bson";
import { expect } from "chai";
import { decodeDocument } from "../../../services/embedded-mongo/wire/decode-document.js";

const VALIDATED = { promoteLongs: true, promoteValues: true, promoteBuffers: false } as const;

/** `doc` serialized, with the UTF-8 of "é" (C3 A9) in it made malformed (C3 28), same length. */
function withMalformedUtf8(doc: Record<string, unknown>): Uint8Array {
  const bytes = Buffer.from(BSON.serialize(doc));
  const at = bytes.indexOf(Buffer.from("é"));
  if (at < 0) throw new Error("the document holds no é to break");
  bytes[at + 1] = 0x28;
  return bytes;
}

describe("embedded-mongo decodeDocument (UTF-8 checked without bson's per-character loop)", () => {
  it("decodes what bson's validated decoding decodes, value for value", () => {
    const doc = {
      ascii: "x".repeat(20_000),
      accents: "déjà vu, naïve, 東京, 🏋️",
      replacement: "a genuine \uFFFD sent by the client",
      nested: { list: ["é", { deeper: "\uFFFD" }, 1.5, null], at: new Date(1_700_000_000_000) },
      values: [new ObjectId("6566d4f5a1b2c3d4e5f60718"), new Binary(Buffer.from([0xc3, 0x28]))],
      long: Long.fromString("9007199254740993"),
    };
    const bytes = BSON.serialize(doc);
    expect(decodeDocument(bytes)).to.deep.equal(BSON.deserialize(bytes, VALIDATED));
    expect(decodeDocument(bytes).replacement).to.equal(doc.replacement);
  });

  it("refuses malformed UTF-8 wherever the string is, as bson does", () => {
    const cases = [
      { top: "café" },
      { nested: { deeper: { text: "café" } } },
      { list: ["ok", ["café"]] },
      { big: `${"x".repeat(50_000)}café` },
    ];
    for (const doc of cases) {
      const bytes = withMalformedUtf8(doc);
      expect(() => BSON.deserialize(bytes, VALIDATED), JSON.stringify(doc)).to.throw(BSONError);
      expect(() => decodeDocument(bytes), JSON.stringify(doc)).to.throw(BSONError, /UTF-8/);
    }
  });

  it("leaves Code, Symbol and DBRef to bson's own validation", () => {
    const malformed = [
      { code: new Code("return 'café'") },
      { symbol: new BSONSymbol("café") },
      { ref: new DBRef("café", new ObjectId("6566d4f5a1b2c3d4e5f60718")) },
    ];
    for (const doc of malformed) {
      const bytes = withMalformedUtf8(doc);
      expect(() => decodeDocument(bytes), Object.keys(doc)[0]).to.throw(BSONError);
    }
    const wellFormed = BSON.serialize({ code: new Code("return 'café'") });
    expect(decodeDocument(wellFormed)).to.deep.equal(BSON.deserialize(wellFormed, VALIDATED));
  });

  it("decodes a document nested 10,000 levels deep as bson does, without running out of stack", () => {
    let value: unknown = "café";
    for (let level = 0; level < 10_000; level++) value = level % 2 ? { a: value } : [value];
    let decoded: unknown = decodeDocument(BSON.serialize({ v: value })).v;
    for (let level = 9_999; level >= 0; level--) {
      decoded = level % 2 ? (decoded as { a: unknown }).a : (decoded as unknown[])[0];
    }
    expect(decoded).to.equal("café");
    expect(() => decodeDocument(withMalformedUtf8({ v: value }))).to.throw(BSONError, /UTF-8/);
  });

  it("refuses malformed BSON as before", () => {
    const bytes = Buffer.from(BSON.serialize({ text: "abc" }));
    bytes.writeInt32LE(1000, 0);
    expect(() => decodeDocument(bytes)).to.throw(BSONError);
  });
});
