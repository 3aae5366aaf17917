import { Decimal128, Double, Int32, Long, ObjectId } from "bson";
import { expect } from "chai";
import type { Doc } from "../../../services/embedded-mongo/bson-values.js";
import { compileFilter } from "../../../services/embedded-mongo/query/matcher.js";
import { MingoQuery } from "../../../services/embedded-mongo/query/mingo-context.js";

/** A small deterministic PRNG so failures reproduce. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

/** Every kind of value a plain field condition meets: each numeric BSON type, NaN, arrays... */
const VALUES: readonly unknown[] = [
  undefined,
  null,
  0,
  -1,
  2.5,
  3,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Long.fromNumber(3),
  new Int32(2),
  new Double(2.5),
  Decimal128.fromString("2.75"),
  "",
  "b",
  "ba",
  true,
  false,
  new Date(1000),
  new Date(2000),
  new ObjectId("6566d4f5a1b2c3d4e5f60718"),
  [1, 5],
  ["b", 3],
  [[2]],
  [],
  { x: 2 },
  [{ x: 2 }, { x: "b" }],
];

/** Operands of the fast path: scalars of each simple type (and NaN, infinities, BSON numbers). */
const OPERANDS: readonly unknown[] = [
  0,
  2,
  2.5,
  3,
  Number.NaN,
  Number.NEGATIVE_INFINITY,
  Long.fromNumber(2),
  "b",
  "",
  true,
  new Date(1500),
  new ObjectId("6566d4f5a1b2c3d4e5f60718"),
];

function randomDoc(rand: () => number, id: number): Doc {
  const doc: Doc = { _id: id };
  for (const key of ["a", "b"]) {
    const value = pick(rand, VALUES);
    if (value !== undefined) doc[key] = value;
  }
  if (rand() < 0.5) doc.n = { x: pick(rand, VALUES) };
  return doc;
}

/**
 * Equality operands where mingo is an oracle: mingo's own equality does not treat a Long or a
 * Decimal128 as equal to the same JavaScript number, which MongoDB (and the fast path, through
 * compareValues) does, so numbers are left to the range conditions and the test below.
 */
const EQUALITY_OPERANDS: readonly unknown[] = [
  "b",
  "",
  true,
  new Date(1000),
  new ObjectId("6566d4f5a1b2c3d4e5f60718"),
];

function randomFilter(rand: () => number): Doc {
  const filter: Doc = {};
  for (const path of ["a", "b", "n.x", "a.x"]) {
    const r = rand();
    if (r < 0.6) continue;
    if (r < 0.7) {
      filter[path] = pick(rand, EQUALITY_OPERANDS);
      continue;
    }
    const range: Doc = {};
    for (const operator of ["$gt", "$gte", "$lt", "$lte"]) {
      if (rand() < 0.4) range[operator] = pick(rand, OPERANDS);
    }
    if (Object.keys(range).length > 0) filter[path] = range;
  }
  return filter;
}

describe("embedded-mongo filters: the plain-field fast path against mingo", () => {
  it("matches exactly the documents mingo matches, for 3,000 random filters", () => {
    const rand = prng(38);
    const docs = Array.from({ length: 60 }, (_, i) => randomDoc(rand, i));
    let matched = 0;
    let compared = 0;
    for (let round = 0; round < 3000; round++) {
      const filter = randomFilter(rand);
      if (Object.keys(filter).length === 0) continue;
      const fast = compileFilter(filter);
      const mingo = new MingoQuery(filter);
      for (const doc of docs) {
        const expected = mingo.test(doc);
        expect(fast(doc), `${JSON.stringify(filter)} on ${JSON.stringify(doc)}`).to.equal(expected);
        if (expected) matched++;
        compared++;
      }
    }
    // The grid must exercise both answers, or it proves nothing.
    expect(matched).to.be.greaterThan(compared / 50);
    expect(matched).to.be.lessThan(compared / 2);
  });

  it("compares NaN of any numeric BSON type as MongoDB does: equal to NaN only, below other numbers", () => {
    const equalsNaN = compileFilter({ a: Number.NaN });
    expect(equalsNaN({ _id: 1, a: Decimal128.fromString("2.75") })).to.equal(false);
    expect(equalsNaN({ _id: 2, a: Long.fromNumber(3) })).to.equal(false);
    expect(equalsNaN({ _id: 3, a: Number.NaN })).to.equal(true);
    expect(equalsNaN({ _id: 4, a: Decimal128.fromString("NaN") })).to.equal(true);
    const above = compileFilter({ a: { $gt: Number.NaN } });
    expect(above({ _id: 5, a: Decimal128.fromString("-1e300") })).to.equal(true);
    expect(above({ _id: 6, a: Decimal128.fromString("NaN") })).to.equal(false);
  });

  it("takes the filters detection sends on every record write and read", () => {
    const chunk = { _id: "ses_1/3", session_id: "ses_1", chunk: 3, lease_epoch: 2 };
    const cases: [Doc, boolean][] = [
      [{ _id: "ses_1/3", lease_epoch: { $lte: 2 } }, true],
      [{ _id: "ses_1/3", lease_epoch: { $lte: 1 } }, false],
      [{ session_id: "ses_1", chunk: { $gte: 0, $lt: 4 } }, true],
      [{ session_id: "ses_1", chunk: { $gte: 4, $lt: 8 } }, false],
    ];
    for (const [filter, expected] of cases) {
      expect(compileFilter(filter)(chunk), JSON.stringify(filter)).to.equal(expected);
      expect(new MingoQuery(filter).test(chunk), JSON.stringify(filter)).to.equal(expected);
    }
  });
});
