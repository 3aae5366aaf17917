import { expect } from "chai";
import type { Doc } from "../../../services/embedded-mongo/bson-values.js";
import { idFirst, projectDocuments } from "../../../services/embedded-mongo/query/matcher.js";
import { MingoQuery } from "../../../services/embedded-mongo/query/mingo-context.js";

/** A small deterministic PRNG so failures reproduce. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const FIELDS = ["_id", "a", "b", "c", "d"];

function randomDoc(rand: () => number, id: number): Doc {
  const doc: Doc = { _id: id };
  for (const key of ["d", "a", "c", "b"]) {
    if (rand() < 0.3) continue;
    doc[key] = rand() < 0.5 ? Math.floor(rand() * 9) : { x: [1, { y: key }], z: null };
  }
  return doc;
}

/** Top-level projections of every kind: inclusions, exclusions, `_id` either way, mixed flags. */
function randomProjection(rand: () => number): Doc {
  const spec: Doc = {};
  const flags = [0, 1, true, false];
  const mode = Math.floor(rand() * 3);
  for (const key of FIELDS) {
    if (rand() < 0.5) continue;
    const flag = flags[Math.floor(rand() * flags.length)];
    // mode 0: all inclusions (plus maybe _id: 0); mode 1: all exclusions; mode 2: anything
    if (mode === 0) spec[key] = key === "_id" ? flag : 1;
    else if (mode === 1) spec[key] = 0;
    else spec[key] = flag;
  }
  return Object.keys(spec).length > 0 ? spec : { a: 1 };
}

/** The projection as mingo applies it: the reference the store's own fast path must match. */
function throughMingo(docs: Doc[], spec: Doc): Doc[] | "error" {
  try {
    return (new MingoQuery({}).find(docs, spec).all() as Doc[]).map(idFirst);
  } catch {
    return "error";
  }
}

describe("embedded-mongo projections: top-level fields without mingo match mingo", () => {
  it("gives the same documents as mingo, fields in stored order, for 2,000 random projections", () => {
    const rand = prng(16);
    let compared = 0;
    for (let i = 0; i < 2000; i++) {
      const docs = Array.from({ length: 3 }, (_, n) => randomDoc(rand, n));
      const spec = randomProjection(rand);
      const expected = throughMingo(docs, spec);
      let actual: Doc[] | "error";
      try {
        actual = projectDocuments(docs, spec);
      } catch {
        actual = "error";
      }
      const context = JSON.stringify({ docs, spec });
      expect(actual, context).to.deep.equal(expected);
      if (expected === "error") continue;
      // Fields come in the stored document's order, as MongoDB returns them (mingo orders an
      // inclusion by the projection instead).
      (actual as Doc[]).forEach((doc, n) => {
        const order = Object.keys(docs[n]).filter((key) => key in doc);
        expect(Object.keys(doc), context).to.deep.equal(order);
      });
      compared += 1;
    }
    expect(compared).to.be.greaterThan(1000);
  });

  it("leaves the stored documents whole", () => {
    const stored: Doc = { _id: 1, a: 1, checkpoint: { engine: "{}" } };
    const [projected] = projectDocuments([stored], { checkpoint: 0 });
    expect(projected).to.deep.equal({ _id: 1, a: 1 });
    expect(stored).to.deep.equal({ _id: 1, a: 1, checkpoint: { engine: "{}" } });
  });
});
