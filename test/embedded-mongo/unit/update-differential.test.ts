import { expect } from "chai";
import { update as mingoUpdate } from "mingo";
import { cloneDoc, type Doc } from "../../../services/embedded-mongo/bson-values.js";
import { MINGO_OPTIONS } from "../../../services/embedded-mongo/query/mingo-context.js";
import { applyUpdate } from "../../../services/embedded-mongo/query/update-document.js";

/** A small deterministic PRNG so failures reproduce. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Documents whose fields are missing, scalars, arrays or embedded documents, nested twice. */
function randomDoc(rand: () => number, id: number): Doc {
  const value = (depth: number): unknown => {
    const r = rand();
    if (r < 0.3) return Math.floor(rand() * 10);
    if (r < 0.4) return null;
    if (r < 0.5) return [Math.floor(rand() * 5), { a: 1 }];
    if (r < 0.6) return "text";
    if (depth === 0) return { a: 1 };
    const nested: Doc = {};
    for (const key of ["a", "b"]) if (rand() < 0.6) nested[key] = value(depth - 1);
    return nested;
  };
  const doc: Doc = { _id: id };
  for (const key of ["a", "b", "c"]) if (rand() < 0.7) doc[key] = value(2);
  return doc;
}

/** $set, $unset and $inc of paths that hit every case: missing, through arrays, through scalars. */
function randomModifier(rand: () => number): Doc {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const paths = ["a", "b", "c", "d", "a.a", "a.b", "b.a", "a.a.a", "a.b.a", "c.0", "a.1", "new.x"];
  const operands = [1, 2.5, -3, "s", null, { z: [1, { y: 2 }] }, [1, 2], new Date(0)];
  const modifier: Doc = {};
  const used: string[] = [];
  for (const op of ["$set", "$unset", "$inc"]) {
    if (rand() < 0.5) continue;
    const args: Doc = {};
    for (let i = 0; i < 1 + Math.floor(rand() * 2); i++) {
      const path = pick(paths);
      // Conflicting paths are refused before any update runs (validateUpdate).
      if (used.some((p) => p === path || p.startsWith(`${path}.`) || path.startsWith(`${p}.`)))
        continue;
      used.push(path);
      args[path] = op === "$unset" ? "" : op === "$inc" ? pick([1, -2, 0.5]) : pick(operands);
    }
    if (Object.keys(args).length > 0) modifier[op] = args;
  }
  return Object.keys(modifier).length > 0 ? modifier : { $set: { a: 1 } };
}

/** What mingo alone makes of the update: the reference the store's own fast path must match. */
function throughMingo(doc: Doc, modifier: Doc): { doc?: Doc; error?: boolean } {
  const next = cloneDoc(doc);
  try {
    mingoUpdate(next, modifier as never, undefined, {}, { queryOptions: MINGO_OPTIONS });
    return { doc: next };
  } catch {
    return { error: true };
  }
}

function isTypeRefusal(error: unknown): boolean {
  const { codeName, message } = error as { codeName?: string; message?: string };
  return (
    codeName === "TypeMismatch" ||
    codeName === "PathNotViable" ||
    (codeName === "BadValue" && /must be an array/.test(message ?? ""))
  );
}

describe("embedded-mongo updates: $set, $unset and $inc without mingo match mingo", () => {
  it("gives the same document as mingo for 3,000 random documents and updates", () => {
    const rand = prng(18);
    let compared = 0;
    let refusals = 0;
    for (let i = 0; i < 3000; i++) {
      const doc = randomDoc(rand, i);
      const modifier = randomModifier(rand);
      const expected = throughMingo(doc, modifier);
      let actual: Doc | undefined;
      try {
        actual = applyUpdate(doc, modifier).doc;
      } catch (error) {
        // What mongod refuses and mingo skips silently (a value of the wrong type on the way or
        // at the end): the conformance suite checks those against mongod's codes.
        if (isTypeRefusal(error)) {
          refusals += 1;
          continue;
        }
        actual = undefined;
      }
      const context = JSON.stringify({ doc, modifier });
      if (expected.error) {
        expect(actual, context).to.equal(undefined);
        continue;
      }
      expect(actual, context).to.deep.equal(expected.doc);
      expect(Object.keys(actual as Doc), context).to.deep.equal(Object.keys(expected.doc as Doc));
      compared += 1;
    }
    expect(compared).to.be.greaterThan(1200);
    expect(refusals).to.be.greaterThan(100);
  });

  it("never changes the stored document, nor shares a value with the update", () => {
    const stored: Doc = { _id: 1, a: { b: 1 }, n: 1 };
    const value = { deep: [1, { x: 1 }] };
    const { doc } = applyUpdate(stored, { $set: { "a.c": value }, $inc: { n: 1 } });
    expect(stored).to.deep.equal({ _id: 1, a: { b: 1 }, n: 1 });
    expect(doc).to.deep.equal({ _id: 1, a: { b: 1, c: { deep: [1, { x: 1 }] } }, n: 2 });
    value.deep.push(2);
    expect((doc.a as Doc).c).to.deep.equal({ deep: [1, { x: 1 }] });
  });
});
