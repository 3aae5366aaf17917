import { expect } from "chai";
import { MongoClient } from "mongodb";
import { readClientCredentials } from "../../services/embedded-mongo/security/client-credentials.js";
import { type EmbeddedMongoHandle, startEmbeddedMongo } from "../support/embedded-mongo.js";
import { opMsg, RawMongoConnection, type Reply } from "../support/raw-mongo-connection.js";
import { againstRealMongo } from "./conformance/harness.js";

/** Sends bytes on a new connection, returns the first reply's body (null if the server closed). */
async function exchange(port: number, bytes: Buffer, authenticated = false): Promise<Reply | null> {
  const connection = await RawMongoConnection.open(port);
  try {
    if (authenticated) await connection.authenticate(readClientCredentials(credentialsFile));
    connection.write(bytes);
    return await connection.reply();
  } finally {
    connection.close();
  }
}

let credentialsFile = "";

describe("embedded-mongo wire protocol robustness", function () {
  this.timeout(30_000);
  let mongo: EmbeddedMongoHandle;
  before(async function () {
    if (againstRealMongo) this.skip(); // raw sockets against the embedded server only
    mongo = await startEmbeddedMongo();
    credentialsFile = mongo.credentialsFile;
  });
  after(async () => {
    await mongo?.stop();
  });

  it("answers a raw OP_MSG command", async () => {
    const reply = await exchange(mongo.port, opMsg({ ping: 1, $db: "admin" }));
    expect(reply).to.deep.include({ ok: 1 });
  });

  it("closes a connection that sends garbage and keeps serving others", async () => {
    expect(await exchange(mongo.port, Buffer.from([1, 0, 0, 0, 9, 9, 9, 9]))).to.equal(null);
    const broken = opMsg({ ping: 1, $db: "admin" });
    broken.writeInt32LE(1000, 21); // BSON length lies
    expect(await exchange(mongo.port, broken)).to.equal(null);
    const client = new MongoClient(mongo.uri);
    try {
      expect((await client.db("admin").command({ ping: 1 })).ok).to.equal(1);
    } finally {
      await client.close();
    }
  });

  it("closes a connection whose command holds malformed UTF-8 and stores none of it", async () => {
    const insert = opMsg({ insert: "utf8", documents: [{ text: "café" }], $db: "wire" });
    const at = insert.indexOf(Buffer.from("é"));
    insert[at + 1] = 0x28; // C3 A9 -> C3 28: not UTF-8
    expect(await exchange(mongo.port, insert, true)).to.equal(null);
    const client = new MongoClient(mongo.uri);
    try {
      const collection = client.db("wire").collection("utf8");
      expect(await collection.countDocuments()).to.equal(0);
      // A genuine U+FFFD and non-ASCII text are stored and read back as sent.
      const text = `déjà \uFFFD ${"x".repeat(10_000)}`;
      await collection.insertOne({ text });
      expect((await collection.findOne({}))?.text).to.equal(text);
    } finally {
      await client.close();
    }
  });

  it("does not reply to a moreToCome (unacknowledged) message", async () => {
    const silent = opMsg(
      { insert: "w", documents: [{ a: 1 }], $db: "wire", writeConcern: { w: 0 } },
      7,
      2,
    );
    const followUp = opMsg({ count: "w", $db: "wire" }, 8);
    const reply = await exchange(mongo.port, Buffer.concat([silent, followUp]), true);
    expect(reply).to.deep.include({ ok: 1, n: 1 });
  });

  it("applies no unacknowledged write from an unauthenticated connection", async () => {
    const silent = opMsg(
      { insert: "w", documents: [{ anonymous: true }], $db: "wire", writeConcern: { w: 0 } },
      7,
      2,
    );
    const followUp = opMsg({ count: "w", $db: "wire" }, 8);
    const reply = await exchange(mongo.port, Buffer.concat([silent, followUp]));
    expect(reply).to.deep.include({ ok: 0, code: 13, codeName: "Unauthorized" });
    const client = new MongoClient(mongo.uri);
    try {
      expect(await client.db("wire").collection("w").countDocuments({ anonymous: true })).to.equal(
        0,
      );
    } finally {
      await client.close();
    }
  });
});
