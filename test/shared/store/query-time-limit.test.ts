import { Code, ConnectError } from "@connectrpc/connect";
import { errorInfo } from "@movement-detection/shared/errors";
import { withQueryTimeLimit } from "@movement-detection/shared/runtime";
import { guardStore } from "@movement-detection/shared/store";
import { expect } from "chai";
import {
  type CommandStartedEvent,
  type Db,
  type Document,
  MongoClient,
  MongoServerError,
} from "mongodb";
import { type EmbeddedMongoHandle, startEmbeddedMongo } from "../../support/embedded-mongo.js";
import { fillSlowCollection, SLOW_FILTER, timed } from "../../support/slow-query.js";

interface Item {
  _id: number;
  [field: string]: unknown;
}

/**
 * The services' own time limit on their queries (MONGODB_MAX_TIME_MS, services/shared/runtime/
 * mongo.ts), through the official driver against the embedded store process.
 */
describe("services' query time limit (withQueryTimeLimit)", () => {
  const LIMIT_MS = 500;
  let mongo: EmbeddedMongoHandle;
  let client: MongoClient;
  let raw: Db;
  const started: CommandStartedEvent[] = [];

  before(async function () {
    this.timeout(30_000);
    mongo = await startEmbeddedMongo();
    client = new MongoClient(mongo.uri, { monitorCommands: true });
    client.on("commandStarted", (event) => started.push(event));
    await client.connect();
    raw = client.db(`query_time_limit_${Date.now().toString(36)}`);
    await raw.collection("items").insertMany([
      { _id: 1, k: "a" },
      { _id: 2, k: "b" },
    ] as Document[]);
  });
  after(async function () {
    this.timeout(30_000);
    await raw?.dropDatabase().catch(() => {});
    await client?.close();
    await mongo?.stop();
  });

  /** The maxTimeMS of the one command `run` sends named `name`. */
  async function sentMaxTime(name: string, run: () => Promise<unknown>): Promise<unknown> {
    started.length = 0;
    await run();
    const command = started.find((event) => event.commandName === name);
    expect(command, `a ${name} command`).to.not.equal(undefined);
    return command?.command.maxTimeMS;
  }

  it("every query and filtered write carries maxTimeMS; a call's own value wins", async () => {
    const items = withQueryTimeLimit(raw, 1234).collection<Item>("items");
    const calls: Array<[string, string, () => Promise<unknown>]> = [
      ["find", "find", () => items.find({ k: "a" }).toArray()],
      ["findOne", "find", () => items.findOne({ _id: 1 })],
      ["aggregate", "aggregate", () => items.aggregate([{ $match: {} }]).toArray()],
      ["countDocuments", "aggregate", () => items.countDocuments({ k: "a" })],
      ["estimatedDocumentCount", "count", () => items.estimatedDocumentCount()],
      ["distinct", "distinct", () => items.distinct("k")],
      [
        "findOneAndUpdate",
        "findAndModify",
        () => items.findOneAndUpdate({ _id: 1 }, { $set: { x: 1 } }),
      ],
      ["findOneAndReplace", "findAndModify", () => items.findOneAndReplace({ _id: 9 }, { k: "z" })],
      ["findOneAndDelete", "findAndModify", () => items.findOneAndDelete({ _id: 9 })],
      ["updateOne", "update", () => items.updateOne({ _id: 1 }, { $set: { y: 1 } })],
      ["updateMany", "update", () => items.updateMany({}, { $set: { z: 1 } })],
      ["replaceOne", "update", () => items.replaceOne({ _id: 9 }, { k: "z" })],
      ["deleteOne", "delete", () => items.deleteOne({ _id: 9 })],
      ["deleteMany", "delete", () => items.deleteMany({ _id: 9 })],
    ];
    for (const [method, command, run] of calls) {
      expect(await sentMaxTime(command, run), method).to.equal(1234);
    }
    expect(await sentMaxTime("find", () => items.find({}, { maxTimeMS: 77 }).toArray())).to.equal(
      77,
    );
    // Inserts run no query: left alone.
    expect(await sentMaxTime("insert", () => items.insertOne({ _id: 3 }))).to.equal(undefined);
  });

  it("0 leaves the database as it is: no maxTimeMS", async () => {
    expect(withQueryTimeLimit(raw, 0)).to.equal(raw);
    const items = withQueryTimeLimit(raw, 0).collection("items");
    expect(await sentMaxTime("find", () => items.find({}).toArray())).to.equal(undefined);
  });

  describe("a query slower than the limit", () => {
    before(async function () {
      this.timeout(30_000);
      await fillSlowCollection(raw.collection("slow"));
    });

    it("is stopped by the database within twice the limit, and a store says UNAVAILABLE", async () => {
      const slow = withQueryTimeLimit(raw, LIMIT_MS).collection<Item>("slow");
      const { ms, error } = await timed(() => slow.find(SLOW_FILTER).toArray());
      expect(error).to.be.instanceOf(MongoServerError);
      expect(error?.code).to.equal(50);
      expect(ms).to.be.at.least(LIMIT_MS - 5);
      expect(ms).to.be.below(2 * LIMIT_MS);

      const store = guardStore("slow", { list: () => slow.find(SLOW_FILTER).toArray() });
      const translated = await store.list().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(translated).to.be.instanceOf(ConnectError);
      expect((translated as ConnectError).code).to.equal(Code.Unavailable);
      expect(errorInfo(translated).reason).to.equal("DEPENDENCY_UNAVAILABLE");
    });

    it("a query within the limit answers", async () => {
      const slow = withQueryTimeLimit(raw, LIMIT_MS).collection<Item>("slow");
      const docs = await slow.find({ _id: { $lt: 3 } }).toArray();
      expect(docs.map((d) => d._id)).to.deep.equal([0, 1, 2]);
    });
  });
});
