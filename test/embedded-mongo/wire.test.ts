import net from "node:net";
import { BSON } from "bson";
import { expect } from "chai";
import { MongoClient } from "mongodb";
import { type EmbeddedMongoHandle, startEmbeddedMongo } from "../support/embedded-mongo.js";
import { againstRealMongo } from "./conformance/harness.js";

function opMsg(body: Record<string, unknown>, requestId = 1, flags = 0): Buffer {
  const payload = BSON.serialize(body);
  const out = Buffer.alloc(21 + payload.length);
  out.writeInt32LE(out.length, 0);
  out.writeInt32LE(requestId, 4);
  out.writeInt32LE(0, 8);
  out.writeInt32LE(2013, 12);
  out.writeUInt32LE(flags, 16);
  out.writeUInt8(0, 20);
  out.set(payload, 21);
  return out;
}

/** Sends bytes, returns the first reply's body (or null if the server closed the connection). */
function exchange(port: number, bytes: Buffer): Promise<Record<string, unknown> | null> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(bytes));
    let data = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error("no reply and no close"));
    }, 5000);
    socket.on("data", (chunk) => {
      data = Buffer.concat([data, chunk]);
      if (data.length >= 4 && data.length >= data.readInt32LE(0)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(BSON.deserialize(data.subarray(21, data.readInt32LE(0))));
      }
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(null);
    });
    socket.on("error", () => {});
  });
}

describe("embedded-mongo wire protocol robustness", function () {
  this.timeout(30_000);
  let mongo: EmbeddedMongoHandle;
  before(async function () {
    if (againstRealMongo) this.skip(); // raw sockets against the embedded server only
    mongo = await startEmbeddedMongo();
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

  it("does not reply to a moreToCome (unacknowledged) message", async () => {
    const silent = opMsg(
      { insert: "w", documents: [{ a: 1 }], $db: "wire", writeConcern: { w: 0 } },
      7,
      2,
    );
    const followUp = opMsg({ count: "w", $db: "wire" }, 8);
    const reply = await exchange(mongo.port, Buffer.concat([silent, followUp]));
    expect(reply).to.deep.include({ ok: 1, n: 1 });
  });
});
