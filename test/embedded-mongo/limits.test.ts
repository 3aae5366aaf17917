import { expect } from "chai";
import { type Collection, type Document, MongoClient, MongoServerError } from "mongodb";
import { RE2JS } from "re2js";
import {
  MAX_PATTERN_SIZE,
  MAX_SEARCH_STEPS,
} from "../../services/embedded-mongo/query/bounded-regex.js";
import { startEmbeddedMongo } from "../support/embedded-mongo.js";
import { fillSlowCollection, SLOW_FILTER, timed } from "../support/slow-query.js";
import { againstRealMongo, errorOf, useConformanceDb } from "./conformance/harness.js";

/** Documents of these tests: string or number ids, any fields. */
interface Row {
  _id: string | number;
  [field: string]: unknown;
}

/**
 * The embedded store's bounds on work, through the official driver against the store process:
 * `maxTimeMS` (and the store's own limit, EMBEDDED_MONGO_MAX_TIME_MS) and regular expressions.
 */
describe("embedded-mongo: time limits and bounded regular expressions", () => {
  const state = useConformanceDb("limits");
  const LIMIT_MS = 500;
  let slow: Collection<Row>;

  before(async function () {
    if (againstRealMongo) this.skip(); // the regex bounds and the store's limit are this server's
    this.timeout(30_000);
    slow = state.db.collection<Row>("slow");
    await fillSlowCollection(slow);
    // The fixture must take well over the limit, or every test below proves nothing.
    const probe = await timed(() => slow.find(SLOW_FILTER, { maxTimeMS: 3 * LIMIT_MS }).toArray());
    expect(probe.error?.code, "the slow query must outlast three times the limit").to.equal(50);
  });

  /** Each operation that scans, with the slow filter and `maxTimeMS`. */
  const operations: Array<[string, (maxTimeMS: number) => Promise<unknown>]> = [
    ["find", (maxTimeMS) => slow.find(SLOW_FILTER, { maxTimeMS }).toArray()],
    [
      "aggregate ($match, $group)",
      (maxTimeMS) =>
        slow
          .aggregate([{ $match: SLOW_FILTER }, { $group: { _id: null, n: { $sum: 1 } } }], {
            maxTimeMS,
          })
          .toArray(),
    ],
    [
      "aggregate ($regexMatch after $project)",
      (maxTimeMS) =>
        slow
          .aggregate(
            [
              { $project: { s: 1 } },
              { $match: { $expr: { $regexMatch: { input: "$s", regex: SLOW_FILTER.s.$regex } } } },
            ],
            { maxTimeMS },
          )
          .toArray(),
    ],
    ["countDocuments", (maxTimeMS) => slow.countDocuments(SLOW_FILTER, { maxTimeMS })],
    ["count", (maxTimeMS) => state.db.command({ count: "slow", query: SLOW_FILTER, maxTimeMS })],
    ["distinct", (maxTimeMS) => slow.distinct("_id", SLOW_FILTER, { maxTimeMS })],
    [
      "findOneAndUpdate",
      (maxTimeMS) =>
        // Matching nothing (the regex runs first), so the whole collection is scanned.
        slow.findOneAndUpdate(
          { ...SLOW_FILTER, touched: "never" },
          { $set: { touched: true } },
          { maxTimeMS },
        ),
    ],
    [
      "updateMany",
      (maxTimeMS) =>
        state.db.command({
          update: "slow",
          updates: [{ q: SLOW_FILTER, u: { $set: { touched: true } }, multi: true }],
          maxTimeMS,
        }),
    ],
    [
      "deleteMany",
      (maxTimeMS) =>
        state.db.command({ delete: "slow", deletes: [{ q: SLOW_FILTER, limit: 0 }], maxTimeMS }),
    ],
  ];

  for (const [name, run] of operations) {
    it(`${name}: past maxTimeMS fails MaxTimeMSExpired (50) within twice the limit`, async () => {
      const { ms, error } = await timed(() => run(LIMIT_MS));
      expect(error).to.be.instanceOf(MongoServerError);
      expect(error?.code).to.equal(50);
      expect(error?.codeName).to.equal("MaxTimeMSExpired");
      expect(ms).to.be.at.least(LIMIT_MS - 5);
      expect(ms).to.be.below(2 * LIMIT_MS);
    });
  }

  it("writes stopped by their time limit changed nothing (the scan comes before the writes)", async () => {
    expect(await slow.countDocuments({ touched: true })).to.equal(0);
    expect(await slow.estimatedDocumentCount()).to.equal(120);
  });

  it("a query that finishes within its maxTimeMS answers in full", async () => {
    // A tenth of the documents (by _id, through the index), given ten times what it takes.
    const part = { _id: { $lt: 10 }, ...SLOW_FILTER };
    const unlimited = await timed(() => slow.find(part).toArray());
    const docs = await slow.find(part, { maxTimeMS: Math.ceil(10 * unlimited.ms) }).toArray();
    expect(docs.length).to.be.greaterThan(0);
    expect(docs.length).to.equal((unlimited.value as Row[]).length);
  });

  it("maxTimeMS is an integer from 0 to 2^31 - 1, as mongod reads it (BadValue otherwise)", async () => {
    const find = (maxTimeMS: unknown) =>
      state.db.command({ find: "slow", filter: { _id: 1 }, maxTimeMS });
    for (const accepted of [0, 1, 2_147_483_647]) {
      const reply = await find(accepted);
      expect(reply.cursor.firstBatch, String(accepted)).to.have.length(1);
    }
    const refused: Array<[unknown, RegExp]> = [
      [2_147_483_648, /out of range/],
      [-1, /out of range/],
      [1.5, /non-integral/],
      ["10", /must be a number/],
    ];
    for (const [value, message] of refused) {
      const error = await errorOf(() => find(value));
      expect(error.code, String(value)).to.equal(2);
      expect(error.message).to.match(message);
    }
  });

  describe("regular expressions", () => {
    let texts: Collection<Row>;
    before(async () => {
      texts = state.db.collection<Row>("texts");
      await texts.insertMany([
        { _id: "long", s: `${"a".repeat(1_000_000)}!`, list: ["x", `${"a".repeat(50_000)}!`] },
        { _id: "short", s: "aaa", list: ["aaa"] },
      ]);
    });

    it("the catastrophic ^(a+)+$ on a 1,000,000-character string answers in well under a second", async () => {
      const { ms, value } = await timed(() => texts.find({ s: /^(a+)+$/ }).toArray());
      expect((value as Document[]).map((d) => d._id)).to.deep.equal(["short"]);
      expect(ms).to.be.below(1000);
    });

    it("every place a pattern runs is bounded: $in, $nin, $all, $not, $elemMatch, $pull, $regexFind", async () => {
      const catastrophic = /^(a+)+$/;
      const ids = async (filter: Document) =>
        (await texts.find(filter).toArray()).map((d) => d._id).sort();
      expect(await ids({ list: { $in: [catastrophic] } })).to.deep.equal(["short"]);
      expect(await ids({ list: { $nin: [catastrophic] } })).to.deep.equal(["long"]);
      expect(await ids({ list: { $all: [catastrophic] } })).to.deep.equal(["short"]);
      expect(await ids({ s: { $not: catastrophic } })).to.deep.equal(["long"]);
      expect(await ids({ list: { $elemMatch: { $regex: catastrophic } } })).to.deep.equal([
        "short",
      ]);
      const found = await texts
        .aggregate([
          { $sort: { _id: 1 } },
          { $project: { f: { $regexFind: { input: "$s", regex: "^(a+)+$" } } } },
        ])
        .toArray();
      expect(found.map((d) => d.f?.match ?? null)).to.deep.equal([null, "aaa"]);
      await texts.updateMany({}, { $pull: { list: catastrophic } } as never);
      expect((await texts.findOne({ _id: "short" }))?.list).to.deep.equal([]);
      expect((await texts.findOne({ _id: "long" }))?.list).to.have.length(2);
    });

    it("one search may take MAX_SEARCH_STEPS (program size x characters): at the bound it runs, one character past it is BadValue", async () => {
      const pattern = "^(b+)+$";
      const size = RE2JS.compile(pattern).programSize();
      const atBound = Math.floor(MAX_SEARCH_STEPS / size);
      const edge = state.db.collection<Row>("edge");
      await edge.insertMany([
        { _id: "at", s: "b".repeat(atBound) },
        { _id: "past", s: "c".repeat(atBound + 1) },
      ]);
      const at = await edge.find({ _id: "at", s: { $regex: pattern } }).toArray();
      expect(at.map((d) => d._id)).to.deep.equal(["at"]);
      const error = await errorOf(() => edge.find({ s: { $regex: pattern } }).toArray());
      expect(error.code).to.equal(2);
      expect(error.message).to.include("regular expression work limit");
      expect(error.message).to.include(String(atBound + 1));
    });

    it(`a pattern may unroll to ${MAX_PATTERN_SIZE} positions: at the bound it compiles, one more is BadValue`, async () => {
      const atBound = "a{1000}".repeat(MAX_PATTERN_SIZE / 1000);
      // On the short string only: over the long one, such a program would pass the work limit.
      const short = (pattern: string) =>
        texts.find({ _id: "short", s: { $regex: pattern } }).toArray();
      expect(await short(atBound)).to.deep.equal([]);
      const error = await errorOf(() => short(`${atBound}b`));
      expect(error.code).to.equal(2);
      expect(error.message).to.include("regular expression too large");
      expect(error.message).to.include(String(MAX_PATTERN_SIZE + 1));
    });

    it("what RE2 cannot do in linear time is refused by name: backreferences, lookahead, lookbehind", async () => {
      for (const pattern of ["(a)\\1", "a(?=b)", "a(?!b)", "(?<=a)b"]) {
        const error = await errorOf(() => texts.find({ s: { $regex: pattern } }).toArray());
        expect(error.code, pattern).to.equal(2);
        expect(error.message).to.include("backreferences, lookahead or lookbehind");
      }
    });

    it("many cheap searches ($regexFindAll over a long string) end with the time limit", async () => {
      const { ms, error } = await timed(() =>
        state.db
          .collection("texts")
          .aggregate(
            [
              { $match: { _id: "short" } },
              {
                $project: {
                  all: { $regexFindAll: { input: "a".repeat(40_000), regex: "a(.*b)?" } },
                },
              },
            ],
            { maxTimeMS: LIMIT_MS },
          )
          .toArray(),
      );
      expect(error?.code).to.equal(50);
      expect(ms).to.be.below(2 * LIMIT_MS);
    });

    it("$regexFindAll steps past empty matches; $regexMatch takes the x option", async () => {
      const [result] = await texts
        .aggregate([
          { $match: { _id: "short" } },
          {
            $project: {
              empty: { $regexFindAll: { input: "abc", regex: "x*" } },
              extended: { $regexMatch: { input: "abc", regex: "a b  c # letters", options: "x" } },
            },
          },
        ])
        .toArray();
      expect(result.empty.map((m: Document) => m.idx)).to.deep.equal([0, 1, 2, 3]);
      expect(result.extended).to.equal(true);
    });

    it("$dateFromString refuses a format that would become a backtracking pattern", async () => {
      const error = await errorOf(() =>
        texts
          .aggregate([
            { $match: { _id: "short" } },
            {
              $project: {
                d: {
                  $dateFromString: { dateString: `2020${"a".repeat(40)}!`, format: "%Y(a+)+%m" },
                },
              },
            },
          ])
          .toArray(),
      );
      expect(error.code).to.equal(2);
      expect(error.message).to.include("format character '('");
    });

    it("a partial index may not hold a pattern (it would run on every write), as mongod", async () => {
      const error = await errorOf(() =>
        texts.createIndex({ s: 1 }, { partialFilterExpression: { s: { $regex: "^a" } } }),
      );
      expect(error.code).to.equal(67);
    });
  });

  describe("the store's own limit on one command's work (EMBEDDED_MONGO_MAX_TIME_MS)", () => {
    const SERVER_LIMIT_MS = 500;
    let mongo: Awaited<ReturnType<typeof startEmbeddedMongo>>;
    let client: MongoClient;
    let capped: Collection<Row>;
    before(async function () {
      this.timeout(30_000);
      mongo = await startEmbeddedMongo({
        env: { EMBEDDED_MONGO_MAX_TIME_MS: String(SERVER_LIMIT_MS) },
      });
      client = new MongoClient(mongo.uri);
      capped = client.db("limits_capped").collection<Row>("slow");
      await fillSlowCollection(capped);
    });
    after(async function () {
      this.timeout(30_000);
      await client?.close();
      await mongo?.stop();
    });

    it("ends a query without maxTimeMS, and one asking for longer, within twice its limit", async () => {
      for (const options of [{}, { maxTimeMS: 60_000 }]) {
        const { ms, error } = await timed(() => capped.find(SLOW_FILTER, options).toArray());
        expect(error?.code, JSON.stringify(options)).to.equal(50);
        expect(ms).to.be.at.least(SERVER_LIMIT_MS - 5);
        expect(ms).to.be.below(2 * SERVER_LIMIT_MS);
      }
    });

    it("a shorter maxTimeMS still wins", async () => {
      const { ms, error } = await timed(() =>
        capped.find(SLOW_FILTER, { maxTimeMS: 250 }).toArray(),
      );
      expect(error?.code).to.equal(50);
      expect(ms).to.be.below(500);
    });

    it("counts work, not waiting: a write that waited for a transaction's lock still runs", async () => {
      // The pattern is costly enough (over 2^16 steps) for the deadline to read the clock.
      await capped.insertOne({ _id: "held", s: "a".repeat(1024), n: 0 });
      const session = client.startSession();
      session.startTransaction();
      await capped.updateOne({ _id: "held" }, { $inc: { n: 1 } } as never, { session });
      const waiting = capped.updateOne({ _id: "held", ...SLOW_FILTER }, {
        $inc: { n: 10 },
      } as never);
      await new Promise((resolve) => setTimeout(resolve, SERVER_LIMIT_MS + 200));
      await session.commitTransaction();
      await session.endSession();
      const result = await waiting;
      expect(result.modifiedCount).to.equal(1);
      expect((await capped.findOne({ _id: "held" }))?.n).to.equal(11);
    });
  });
});
