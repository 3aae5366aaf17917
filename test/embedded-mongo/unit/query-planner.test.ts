import { ObjectId } from "bson";
import { expect } from "chai";
import { compareValues } from "../../../services/embedded-mongo/bson-values.js";
import { parseSortSpec } from "../../../services/embedded-mongo/document-paths.js";
import { findDocuments } from "../../../services/embedded-mongo/query/find-executor.js";
import { planQuery } from "../../../services/embedded-mongo/query/query-planner.js";
import { Collection } from "../../../services/embedded-mongo/storage/collection.js";
import { normalizeIndexSpec } from "../../../services/embedded-mongo/storage/collection-index.js";

function collectionWith(count: number): Collection {
  const c = new Collection("db", "c");
  c.createIndex(normalizeIndexSpec({ key: { a: 1 }, name: "a_1" }));
  c.createIndex(normalizeIndexSpec({ key: { s: 1, t: -1 }, name: "s_t" }));
  c.createIndex(normalizeIndexSpec({ key: { tags: 1 }, name: "tags_1" }));
  for (let i = 0; i < count; i++) {
    c.insert(
      { _id: i, a: i % 100, s: i % 3 === 0 ? "x" : "y", t: i, tags: [`k${i % 10}`, "all"] },
      i + 1,
    );
  }
  return c;
}

describe("embedded-mongo query planner", () => {
  const c = collectionWith(3000);

  it("orders BSON values like MongoDB across types", () => {
    const ordered = [
      null,
      1,
      2.5,
      "a",
      "b",
      { x: 1 },
      [1],
      new ObjectId("000000000000000000000000"),
      false,
      true,
      new Date(0),
    ];
    const shuffled = [...ordered].reverse();
    expect(shuffled.sort(compareValues)).to.deep.equal(ordered);
  });

  it("picks the most selective index", () => {
    const plan = planQuery(c, { filter: { a: 5, s: "x" } });
    expect(plan.kind).to.equal("ixscan");
    if (plan.kind === "ixscan") expect(plan.index.name).to.equal("a_1");
  });

  it("uses a compound index for equality + sort and stops after the limit", () => {
    const result = findDocuments(
      { collection: c },
      { filter: { s: "x" }, sort: { t: -1 }, limit: 5, skip: 2 },
    );
    expect(result.docs.map((d) => d._id)).to.deep.equal([2991, 2988, 2985, 2982, 2979]);
    expect(result.docsExamined).to.equal(7);
    const plan = planQuery(c, { filter: { s: "x" }, sort: parseSortSpec({ t: -1 }), needed: 7 });
    expect(plan.kind === "ixscan" && plan.providesSort).to.equal(true);
  });

  it("scans only the rarest $all value of a multikey index", () => {
    const result = findDocuments({ collection: c }, { filter: { tags: { $all: ["all", "k3"] } } });
    expect(result.docs).to.have.length(300);
    expect(result.docsExamined).to.equal(300);
  });

  it("serves a keyword listing ($all + equality + sort on a compound multikey index) with early stop", () => {
    const entries = new Collection("db", "entries");
    entries.createIndex(
      normalizeIndexSpec({
        key: { keywords: 1, listed: 1, updated_at: -1, _id: 1 },
        name: "search_recent",
      }),
    );
    entries.createIndex(
      normalizeIndexSpec({ key: { listed: 1, updated_at: -1, _id: 1 }, name: "listed_recent" }),
    );
    for (let i = 0; i < 5000; i++) {
      entries.insert(
        {
          _id: `e${String(i).padStart(5, "0")}`,
          keywords: [`k${i % 10}`, `m${i % 7}`, "common"],
          listed: i % 3 !== 0,
          updated_at: new Date(1_700_000_000_000 + (i % 1000) * 1000),
        },
        i + 1,
      );
    }
    const request = {
      filter: { keywords: { $all: ["k3"] }, listed: true },
      sort: { updated_at: -1, _id: 1 },
      skip: 10,
      limit: 20,
    };
    const result = findDocuments({ collection: entries }, request);
    expect(result.plan?.kind === "ixscan" && result.plan.index.name).to.equal("search_recent");
    expect(result.docsExamined).to.equal(30);
    const all = findDocuments({ collection: entries }, { filter: request.filter });
    const expected = all.docs
      .sort(
        (a, b) =>
          +(b.updated_at as Date) - +(a.updated_at as Date) ||
          (String(a._id) < String(b._id) ? -1 : 1),
      )
      .slice(10, 30)
      .map((d) => d._id);
    expect(result.docs.map((d) => d._id)).to.deep.equal(expected);
    const two = findDocuments(
      { collection: entries },
      { ...request, filter: { keywords: { $all: ["common", "k3", "m2"] }, listed: true } },
    );
    expect(two.docsExamined).to.be.at.most(500);
  });

  it("falls back to a collection scan for filters no index helps", () => {
    expect(planQuery(c, { filter: { nope: 1 } }).kind).to.equal("collscan");
    const result = findDocuments({ collection: c }, { filter: { a: { $ne: 1 } }, limit: 3 });
    expect(result.docs).to.have.length(3);
  });

  it("sees a transaction's overlay instead of the committed documents", () => {
    const overlay = new Map<string, Record<string, unknown> | null>([
      ["n0", null],
      ["n1", { _id: 1, a: 5, s: "z", t: 1, tags: [] }],
      ["n5000", { _id: 5000, a: 5, s: "z", t: 1, tags: [] }],
    ]);
    const result = findDocuments({ collection: c, overlay }, { filter: { a: { $in: [0, 1, 5] } } });
    const ids = result.docs.map((d) => d._id as number);
    expect(ids).to.not.include(0);
    expect(ids).to.include.members([1, 5000]);
  });
});
