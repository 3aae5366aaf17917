/**
 * The store refuses whoever has not authenticated, with the official driver as the client (its
 * own SCRAM-SHA-256 implementation, negotiated through hello as against mongod), plus a few raw
 * exchanges no driver would send. Specific to the embedded server: skipped with MONGODB_URI.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { MongoClient, MongoServerError } from "mongodb";
import {
  readClientCredentials,
  withCredentials,
} from "../../../services/embedded-mongo/security/client-credentials.js";
import { MAX_UNAUTHENTICATED_MESSAGE_BYTES } from "../../../services/embedded-mongo/wire/connection.js";
import { type EmbeddedMongoHandle, startEmbeddedMongo } from "../../support/embedded-mongo.js";
import { RawMongoConnection } from "../../support/raw-mongo-connection.js";
import { againstRealMongo, errorOf } from "../conformance/harness.js";

const QUICK = { serverSelectionTimeoutMS: 3000 };

async function withClient<T>(uri: string, fn: (client: MongoClient) => Promise<T>): Promise<T> {
  const client = new MongoClient(uri, QUICK);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

function serverError(error: unknown): MongoServerError {
  expect(error, String(error)).to.be.instanceOf(MongoServerError);
  return error as MongoServerError;
}

describe("embedded-mongo authentication", function () {
  this.timeout(60_000);
  let mongo: EmbeddedMongoHandle;
  let password: string;

  before(async function () {
    if (againstRealMongo) this.skip(); // the embedded server's own credentials
    mongo = await startEmbeddedMongo({ env: { EMBEDDED_MONGO_LOG_LEVEL: "debug" } });
    password = readClientCredentials(mongo.credentialsFile).password;
    await withClient(mongo.uri, (c) => c.db("secret").collection("keys").insertOne({ k: "jwk" }));
  });
  after(async () => {
    await mongo?.stop();
  });

  describe("without credentials", () => {
    it("completes the handshake and answers ping, but refuses every command with 13", async () => {
      await withClient(mongo.plainUri, async (client) => {
        const admin = client.db("admin");
        expect((await admin.command({ ping: 1 })).ok).to.equal(1);
        expect((await admin.command({ buildInfo: 1 })).version).to.be.a("string");
        const status = await admin.command({ connectionStatus: 1 });
        expect(status.authInfo.authenticatedUsers).to.deep.equal([]);
        const refused: [string, () => Promise<unknown>][] = [
          ["find", () => client.db("secret").collection("keys").findOne()],
          ["insert", () => client.db("secret").collection("keys").insertOne({ k: "forged" })],
          [
            "update",
            () =>
              client
                .db("secret")
                .collection("keys")
                .updateMany({}, { $set: { k: 1 } }),
          ],
          ["delete", () => client.db("secret").collection("keys").deleteMany({})],
          ["aggregate", () => client.db("secret").collection("keys").aggregate([]).toArray()],
          ["listDatabases", () => admin.command({ listDatabases: 1 })],
          ["listCollections", () => client.db("secret").listCollections().toArray()],
          ["dropDatabase", () => client.db("secret").dropDatabase()],
          ["serverStatus", () => admin.command({ serverStatus: 1 })],
          [
            "getParameter",
            () => admin.command({ getParameter: 1, featureCompatibilityVersion: 1 }),
          ],
        ];
        for (const [name, run] of refused) {
          const error = serverError(await errorOf(run));
          expect(error.code, name).to.equal(13);
          expect(error.codeName, name).to.equal("Unauthorized");
          expect(error.message, name).to.match(/requires authentication/);
        }
      });
      // Nothing changed.
      await withClient(mongo.uri, async (client) => {
        expect(await client.db("secret").collection("keys").find().toArray()).to.have.length(1);
      });
    });

    it("refuses a transaction with 13 and keeps no trace of it", async () => {
      await withClient(mongo.plainUri, async (client) => {
        const session = client.startSession();
        try {
          const error = serverError(
            await errorOf(() =>
              session.withTransaction(() =>
                client.db("secret").collection("keys").insertOne({ k: "txn" }, { session }),
              ),
            ),
          );
          expect(error.code).to.equal(13);
        } finally {
          await session.endSession();
        }
      });
    });

    it("takes a 64 KiB message before authentication and closes the connection at one byte more", async () => {
      const declare = async (length: number) => {
        const raw = await RawMongoConnection.open(mongo.port);
        // A header announcing `length` bytes, then nothing: the server either waits or closes.
        const header = Buffer.alloc(16);
        header.writeInt32LE(length, 0);
        header.writeInt32LE(1, 4);
        header.writeInt32LE(2013, 12);
        raw.write(header);
        const outcome = await raw.reply(1000).then(
          (reply) => (reply === null ? "closed" : "answered"),
          () => "waiting",
        );
        raw.close();
        return outcome;
      };
      expect(await declare(MAX_UNAUTHENTICATED_MESSAGE_BYTES)).to.equal("waiting");
      expect(await declare(MAX_UNAUTHENTICATED_MESSAGE_BYTES + 1)).to.equal("closed");
    });

    it("still answers unknown commands 59 (as mongod: the command is looked up first)", async () => {
      await withClient(mongo.plainUri, async (client) => {
        const error = serverError(await errorOf(() => client.db("admin").command({ nope: 1 })));
        expect(error.code).to.equal(59);
      });
    });
  });

  describe("with wrong credentials", () => {
    const variants: [string, (c: ReturnType<typeof readClientCredentials>) => string][] = [
      [
        "a wrong password",
        (c) => withCredentials(mongo.plainUri, { ...c, password: `${c.password}x` }),
      ],
      ["an unknown user", (c) => withCredentials(mongo.plainUri, { ...c, username: "intruder" })],
      [
        "the right user in another database",
        (c) => withCredentials(mongo.plainUri, { ...c, authSource: "secret" }),
      ],
    ];
    for (const [name, uriOf] of variants) {
      it(`answers 18 AuthenticationFailed for ${name}`, async () => {
        const uri = uriOf(readClientCredentials(mongo.credentialsFile));
        const error = serverError(
          await errorOf(() => withClient(uri, (c) => c.db("secret").collection("keys").findOne())),
        );
        expect(error.code).to.equal(18);
        expect(error.codeName).to.equal("AuthenticationFailed");
        expect(error.message).to.equal("Authentication failed.");
      });
    }

    it("refuses SCRAM-SHA-1 with 334 MechanismUnavailable (only SCRAM-SHA-256 is offered)", async () => {
      const uri = `${mongo.uri}&authMechanism=SCRAM-SHA-1`;
      const error = serverError(
        await errorOf(() => withClient(uri, (c) => c.db("admin").command({ ping: 1 }))),
      );
      expect(error.code).to.equal(334);
    });
  });

  describe("with the store's credentials", () => {
    it("runs CRUD and reports the user in connectionStatus", async () => {
      await withClient(mongo.uri, async (client) => {
        const coll = client.db("app").collection("crud");
        await coll.insertMany([
          { _id: 1 as never, n: 1 },
          { _id: 2 as never, n: 2 },
        ]);
        await coll.updateOne({ _id: 1 as never }, { $inc: { n: 10 } });
        await coll.deleteOne({ _id: 2 as never });
        expect(await coll.find().toArray()).to.deep.equal([{ _id: 1, n: 11 }]);
        const status = await client.db("admin").command({ connectionStatus: 1 });
        expect(status.authInfo.authenticatedUsers).to.deep.equal([
          { user: "mds-admin", db: "admin" },
        ]);
        expect(status.authInfo.authenticatedUserRoles).to.deep.equal([
          { role: "root", db: "admin" },
        ]);
      });
    });

    it("commits and aborts transactions", async () => {
      await withClient(mongo.uri, async (client) => {
        const coll = client.db("app").collection("txn");
        const session = client.startSession();
        try {
          await session.withTransaction(async () => {
            await coll.insertOne({ committed: true }, { session });
          });
          session.startTransaction();
          await coll.insertOne({ committed: false }, { session });
          await session.abortTransaction();
        } finally {
          await session.endSession();
        }
        expect(await coll.find({}, { projection: { _id: 0 } }).toArray()).to.deep.equal([
          { committed: true },
        ]);
      });
    });

    it("authenticates with the mechanism negotiated by hello and with SCRAM-SHA-256 named", async () => {
      for (const uri of [mongo.uri, `${mongo.uri}&authMechanism=SCRAM-SHA-256`]) {
        // Several pooled connections: each one authenticates on its own.
        await withClient(uri, async (client) => {
          const results = await Promise.all(
            Array.from({ length: 8 }, () => client.db("secret").collection("keys").findOne()),
          );
          expect(results.every((doc) => doc?.k === "jwk")).to.equal(true);
        });
      }
    });
  });

  describe("the handshake and the SASL conversation, raw", () => {
    let raw: RawMongoConnection;
    beforeEach(async () => {
      raw = await RawMongoConnection.open(mongo.port);
    });
    afterEach(() => raw.close());

    it("advertises SCRAM-SHA-256 for the store's user only", async () => {
      const known = await raw.command({
        hello: 1,
        saslSupportedMechs: "admin.mds-admin",
        $db: "admin",
      });
      expect(known.saslSupportedMechs).to.deep.equal(["SCRAM-SHA-256"]);
      const unknown = await raw.command({
        hello: 1,
        saslSupportedMechs: "admin.nobody",
        $db: "admin",
      });
      expect(unknown).to.not.have.property("saslSupportedMechs");
    });

    it("authenticates speculatively inside hello, then serves commands", async () => {
      const before = await raw.command({ find: "keys", $db: "secret" });
      expect(before).to.deep.include({ ok: 0, code: 13 });
      const credentials = readClientCredentials(mongo.credentialsFile);
      const final = await raw.authenticate(credentials, { speculative: true });
      expect(final).to.deep.include({ ok: 1, done: true });
      const after = await raw.command({ find: "keys", $db: "secret" });
      expect(after.ok).to.equal(1);
    });

    it("answers 17 ProtocolError to saslContinue without a conversation", async () => {
      const reply = await raw.command({
        saslContinue: 1,
        conversationId: 1,
        payload: Buffer.from("c=biws,r=x,p=AAAA"),
        $db: "admin",
      });
      expect(reply).to.deep.include({ ok: 0, code: 17, codeName: "ProtocolError" });
    });

    it("closes the conversation after a wrong proof: a second try of the same proof gets 17", async () => {
      const credentials = readClientCredentials(mongo.credentialsFile);
      const error = await raw
        .authenticate({ ...credentials, password: `${credentials.password}!` })
        .catch((e: Record<string, unknown>) => e);
      expect(error).to.deep.include({ ok: 0, code: 18 });
      const again = await raw.command({
        saslContinue: 1,
        conversationId: 1,
        payload: Buffer.from("c=biws,r=x,p=AAAA"),
        $db: "admin",
      });
      expect(again).to.deep.include({ ok: 0, code: 17 });
      expect((await raw.command({ find: "keys", $db: "secret" })).code).to.equal(13);
    });
  });

  // Mocha runs a suite's own tests before its nested suites: this one comes last on purpose.
  describe("afterwards", () => {
    it("keeps the password out of its output and its users file", async () => {
      const output = mongo.output();
      expect(output).to.include('"msg":"ready"');
      expect(output).to.include('"msg":"authentication failed"');
      expect(output).to.include('"msg":"authenticated"');
      expect(output).to.not.include(password);
      expect(output).to.not.include(encodeURIComponent(password));
      const ready = JSON.parse(output.split("\n").find((l) => l.includes('"msg":"ready"'))!);
      expect(ready.uri).to.not.include("@");
      expect(ready.credentialsFile).to.equal(path.join(mongo.dataDir, "credentials.json"));

      const users = fs.readFileSync(path.join(mongo.dataDir, "users.json"), "utf8");
      expect(users).to.not.include(password);
      const [user] = JSON.parse(users).users;
      expect(user).to.deep.include({ user: "mds-admin", db: "admin" });
      expect(Object.keys(user.credentials["SCRAM-SHA-256"]).sort()).to.deep.equal([
        "iterationCount",
        "salt",
        "serverKey",
        "storedKey",
      ]);
    });
  });
});

describe("embedded-mongo credentials across starts", function () {
  this.timeout(60_000);
  let dataDir: string;
  before(function () {
    if (againstRealMongo) this.skip();
  });
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "embedded-mongo-credentials-"));
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it("keeps its credentials across a restart", async () => {
    const first = await startEmbeddedMongo({ dataDir });
    const credentials = fs.readFileSync(first.credentialsFile, "utf8");
    await withClient(first.uri, (c) => c.db("app").collection("c").insertOne({ kept: true }));
    await first.stop();
    const second = await startEmbeddedMongo({ dataDir });
    try {
      expect(fs.readFileSync(second.credentialsFile, "utf8")).to.equal(credentials);
      const kept = await withClient(second.uri, (c) => c.db("app").collection("c").findOne());
      expect(kept?.kept).to.equal(true);
    } finally {
      await second.stop();
    }
  });

  it("prints a working connection string for a developer's shell (connection-string.ts)", async () => {
    const mongo = await startEmbeddedMongo({ dataDir });
    try {
      const script = fileURLToPath(
        new URL("../../../services/embedded-mongo/connection-string.ts", import.meta.url),
      );
      const printed = execFileSync(
        process.execPath,
        ["--import", "tsx", script, "--dbpath", dataDir, "--port", String(mongo.port)],
        { encoding: "utf8" },
      ).trim();
      expect(printed).to.match(/^mongodb:\/\/mds-admin:[^@]+@127\.0\.0\.1:\d+\/\?/);
      expect(printed).to.include("authSource=admin");
      const status = await withClient(printed, (c) =>
        c.db("admin").command({ connectionStatus: 1 }),
      );
      expect(status.authInfo.authenticatedUsers).to.have.length(1);
    } finally {
      await mongo.stop();
    }
  });

  it("takes an operator's password from credentials.json at the first start (percent-encoded in the URI)", async () => {
    const chosen = "p@ss:w/rd%?#[]&=+,-0123456789";
    fs.writeFileSync(
      path.join(dataDir, "credentials.json"),
      JSON.stringify({ username: "ops:user@x", password: chosen, authSource: "admin" }),
      { mode: 0o600 },
    );
    const mongo = await startEmbeddedMongo({ dataDir });
    try {
      expect(mongo.uri).to.include(encodeURIComponent(chosen));
      const status = await withClient(mongo.uri, (c) =>
        c.db("admin").command({ connectionStatus: 1 }),
      );
      expect(status.authInfo.authenticatedUsers).to.deep.equal([
        { user: "ops:user@x", db: "admin" },
      ]);
    } finally {
      await mongo.stop();
    }
  });

  it("refuses to start on a short password in credentials.json, naming the file", async () => {
    fs.writeFileSync(
      path.join(dataDir, "credentials.json"),
      JSON.stringify({ username: "u", password: "short" }),
    );
    const error = await startEmbeddedMongo({ dataDir }).catch((e: Error) => e);
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.match(/credentials\.json: a password must be 16/);
  });
});
