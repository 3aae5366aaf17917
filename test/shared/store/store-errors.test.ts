import { Code, ConnectError } from "@connectrpc/connect";
import { errorInfo } from "@movement-detection/shared/errors";
import {
  classifyMongoError,
  guardStore,
  insertUnique,
  translateStoreError,
} from "@movement-detection/shared/store";
import { expect } from "chai";
import {
  MongoClient,
  MongoInvalidArgumentError,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoServerError,
} from "mongodb";
import { type EmbeddedMongoHandle, startEmbeddedMongo } from "../../support/embedded-mongo.js";

function serverError(fields: { code: number; labels?: string[] }): MongoServerError {
  const error = new MongoServerError({ code: fields.code, errmsg: `code ${fields.code}` });
  for (const label of fields.labels ?? []) error.addErrorLabel(label);
  return error;
}

function socketError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error("This socket has been ended by the other party"), { code });
}

describe("store errors (services/shared/store)", () => {
  describe("classifyMongoError", () => {
    const cases: [string, unknown, ReturnType<typeof classifyMongoError>][] = [
      ["E11000", serverError({ code: 11000 }), "duplicate_key"],
      ["WriteConflict 112", serverError({ code: 112 }), "write_conflict"],
      [
        "TransientTransactionError label",
        serverError({ code: 251, labels: ["TransientTransactionError"] }),
        "write_conflict",
      ],
      ["NotWritablePrimary 10107", serverError({ code: 10107 }), "unavailable"],
      ["PrimarySteppedDown 189", serverError({ code: 189 }), "unavailable"],
      ["ShutdownInProgress 91", serverError({ code: 91 }), "unavailable"],
      ["MaxTimeMSExpired 50", serverError({ code: 50 }), "unavailable"],
      [
        "RetryableWriteError label",
        serverError({ code: 1, labels: ["RetryableWriteError"] }),
        "unavailable",
      ],
      ["a network error", new MongoNetworkError("socket closed"), "unavailable"],
      ["a network timeout", new MongoNetworkTimeoutError("timed out"), "unavailable"],
      // What driver 7.9 lets out when it writes to a connection the database just closed.
      ["a raw socket EPIPE", socketError("EPIPE"), "unavailable"],
      ["a raw socket ECONNRESET", socketError("ECONNRESET"), "unavailable"],
      ["a file-system error (ENOENT)", socketError("ENOENT"), "unknown"],
      ["a bad query (2 BadValue)", serverError({ code: 2 }), "unknown"],
      ["a driver misuse", new MongoInvalidArgumentError("bad option"), "unknown"],
      ["a plain bug", new TypeError("x is undefined"), "unknown"],
      ["a thrown string", "boom", "unknown"],
    ];
    for (const [name, error, expected] of cases) {
      it(`${name} is ${expected}`, () => {
        expect(classifyMongoError(error)).to.equal(expected);
      });
    }
  });

  describe("translateStoreError", () => {
    it("an unreachable database is UNAVAILABLE DEPENDENCY_UNAVAILABLE, with the cause kept", () => {
      const cause = new MongoNetworkError("connection refused");
      const translated = translateStoreError(cause) as ConnectError;
      expect(errorInfo(translated)).to.include({
        code: Code.Unavailable,
        reason: "DEPENDENCY_UNAVAILABLE",
      });
      expect(translated.cause).to.equal(cause);
      expect(translated.rawMessage).not.to.contain("refused");
    });

    it("a write conflict is ABORTED WRITE_CONFLICT", () => {
      expect(errorInfo(translateStoreError(serverError({ code: 112 })))).to.include({
        code: Code.Aborted,
        reason: "WRITE_CONFLICT",
      });
    });

    it("a duplicate key nobody handled is ALREADY_EXISTS", () => {
      expect(errorInfo(translateStoreError(serverError({ code: 11000 })))).to.include({
        code: Code.AlreadyExists,
        reason: "ALREADY_EXISTS",
      });
    });

    it("leaves unknown errors and service errors untouched", () => {
      const bug = new TypeError("bug");
      expect(translateStoreError(bug)).to.equal(bug);
      const service = new ConnectError("m", Code.NotFound);
      expect(translateStoreError(service)).to.equal(service);
    });
  });

  describe("against the real store, killed and restarted", function () {
    this.timeout(60_000);
    let mongo: EmbeddedMongoHandle;
    let restarted: EmbeddedMongoHandle | undefined;
    let client: MongoClient;

    before(async function () {
      if (process.env.MONGODB_URI) this.skip(); // cannot kill an external MongoDB
      mongo = await startEmbeddedMongo();
      client = new MongoClient(mongo.uri, { serverSelectionTimeoutMS: 500 });
      await client.connect();
    });

    after(async () => {
      await client?.close(true);
      await restarted?.stop();
      await mongo?.stop(); // already killed: removes its data directory
    });

    it("insertUnique answers duplicate as a result; a guarded store turns an outage into UNAVAILABLE and recovers", async () => {
      const things = client.db("store_errors").collection<{ _id: string }>("things");
      const store = guardStore("test", {
        insert: (id: string) => insertUnique(() => things.insertOne({ _id: id })),
        find: (id: string) => things.findOne({ _id: id }),
      });
      expect(await store.insert("a")).to.equal("inserted");
      expect(await store.insert("a")).to.equal("duplicate");

      const { port, dataDir } = mongo;
      await mongo.kill();
      const failure = await store.find("a").then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure, "a read with the store down").to.be.instanceOf(ConnectError);
      expect(errorInfo(failure)).to.include({
        code: Code.Unavailable,
        reason: "DEPENDENCY_UNAVAILABLE",
      });

      restarted = await startEmbeddedMongo({ port, dataDir });
      expect(await store.find("a"), "the same client, once the store is back").to.deep.equal({
        _id: "a",
      });
    });
  });
});
