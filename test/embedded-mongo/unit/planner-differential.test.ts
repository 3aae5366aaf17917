import { expect } from "chai";
import { Query } from "mingo";
import type { Doc } from "../../../services/embedded-mongo/bson-values.js";
import { parseSortSpec, sortDocuments } from "../../../services/embedded-mongo/document-paths.js";
import { findDocuments } from "../../../services/embedded-mongo/query/find-executor.js";
import { Collection } from "../../../services/embedded-mongo/storage/collection.js";
import { normalizeIndexSpec } from "../../../services/embedded-mongo/storage/collection-index.js";

/** A small deterministic PRNG so failures reproduce. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomDoc(rand: () => number, id: number, arrays: boolean): Doc {
  const doc: Doc = { _id: id };
  const r = rand();
  if (r < 0.7) doc.a = Math.floor(rand() * 20);
  else if (r < 0.8) doc.a = null;
  else if (r < 0.9 && arrays) doc.a = [Math.floor(rand() * 20), Math.floor(rand() * 20)];
  doc.b = ["x", "y", "z"][Math.floor(rand() * 3)];
  doc.c = Array.from({ length: Math.floor(rand() * 4) }, () => `t${Math.floor(rand() * 6)}`);
  if (rand() < 0.5) doc.d = { e: Math.floor(rand() * 5) };
  return doc;
}

function randomFilter(rand: () => number): Doc {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
  const n = () => Math.floor(rand() * 20);
  const clauses: Doc[] = [
    { a: n() },
    { a: { $in: [n(), n(), null] } },
    { a: { $gt: n() } },
    { a: { $gte: n(), $lt: n() } },
    { a: { $lte: n() } },
    { a: null },
    { a: { $exists: true } },
    { b: pick(["x", "y", "z"]) },
    { b: { $in: ["x", "z"] } },
    { c: `t${Math.floor(rand() * 6)}` },
    { c: { $all: [`t${Math.floor(rand() * 6)}`, `t${Math.floor(rand() * 6)}`] } },
    { c: { $in: ["t1", "t2"] } },
    { "d.e": Math.floor(rand() * 5) },
    { $or: [{ a: n() }, { b: "y" }] },
    { $or: [{ a: n() }, { c: "t3" }] },
    { b: { $gt: "x" } },
    { a: { $ne: n() } },
  ];
  const filter: Doc = {};
  const count = 1 + Math.floor(rand() * 2);
  for (let i = 0; i < count; i++) Object.assign(filter, pick(clauses));
  return filter;
}

describe("embedded-mongo planner: index plans return what a full scan returns", () => {
  for (const arrays of [true, false]) {
    it(`agrees with a mingo scan on 250 random queries (${arrays ? "multikey" : "no arrays in a"})`, () => {
      const rand = prng(arrays ? 42 : 7);
      const c = new Collection("db", "c");
      c.createIndex(normalizeIndexSpec({ key: { a: 1 }, name: "a_1" }));
      c.createIndex(normalizeIndexSpec({ key: { b: 1, a: -1 }, name: "b_a" }));
      c.createIndex(normalizeIndexSpec({ key: { c: 1, b: 1 }, name: "c_b" }));
      c.createIndex(normalizeIndexSpec({ key: { "d.e": 1 }, name: "de", sparse: true }));
      const docs = Array.from({ length: 300 }, (_, i) => randomDoc(rand, i, arrays));
      for (const [i, d] of docs.entries()) c.insert(d, i + 1);
      const sorts: Array<Doc | undefined> = [
        undefined,
        { a: 1, _id: 1 },
        { a: -1, _id: 1 },
        { b: 1, a: -1, _id: -1 },
        { b: -1, a: 1, _id: 1 },
        { _id: -1 },
      ];
      for (let q = 0; q < 250; q++) {
        const filter = randomFilter(rand);
        const sort = sorts[Math.floor(rand() * sorts.length)];
        const skip = rand() < 0.5 ? 0 : Math.floor(rand() * 5);
        const limit = rand() < 0.4 ? 0 : 1 + Math.floor(rand() * 10);
        const actual = findDocuments({ collection: c }, { filter, sort, skip, limit }).docs.map(
          (d) => d._id,
        );
        const query = new Query(filter);
        let expected = docs.filter((d) => query.test(d));
        if (sort) expected = sortDocuments(expected, parseSortSpec(sort));
        let ids = expected.map((d) => d._id);
        ids = ids.slice(skip, limit > 0 ? skip + limit : undefined);
        const label = JSON.stringify({ filter, sort, skip, limit });
        if (sort) expect(actual, label).to.deep.equal(ids);
        else if (limit === 0 && skip === 0)
          expect([...actual].sort(), label).to.deep.equal([...ids].sort());
        else expect(actual.length, label).to.equal(ids.length);
      }
    });
  }
});
