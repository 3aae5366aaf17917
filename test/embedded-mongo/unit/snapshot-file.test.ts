import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Binary, BSON, UUID } from "bson";
import { expect } from "chai";
import type { Doc } from "../../../services/embedded-mongo/bson-values.js";
import {
  CorruptFileError,
  encodeRecord,
  RecordReader,
} from "../../../services/embedded-mongo/storage/record-file.js";
import {
  readSnapshot,
  SNAPSHOT_MAGIC,
  type SnapshotCollectionInfo,
  type SnapshotContent,
  writeSnapshot,
} from "../../../services/embedded-mongo/storage/snapshot-file.js";

const MiB = 1024 * 1024;

function collection(name: string, docs: Doc[]) {
  return {
    db: "app",
    name,
    options: {},
    uuid: new UUID().toBinary(),
    indexes: [{ v: 2, key: { k: 1 }, name: "k_1" }],
    docs,
  };
}

/** Everything a snapshot holds, as read back. */
function readAll(file: string) {
  const collections: SnapshotCollectionInfo[] = [];
  const docs = new Map<string, Doc[]>();
  const batches: number[] = [];
  const summary = readSnapshot(file, {
    collection: (info) => {
      collections.push(info);
      docs.set(`${info.db}.${info.name}`, []);
    },
    documents: (ns, batch) => {
      docs.get(ns)?.push(...batch);
      batches.push(batch.length);
    },
  });
  return { summary, collections, docs, batches };
}

/** Payload sizes of a file's records. */
function recordSizes(file: string): number[] {
  const reader = RecordReader.open(file, [SNAPSHOT_MAGIC]);
  const sizes: number[] = [];
  for (let p = reader.next(); p; p = reader.next()) sizes.push(p.length);
  return sizes;
}

describe("embedded-mongo snapshot files", function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "embedded-mongo-snapfile-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("round-trips collections, index definitions and documents of any size", async () => {
    const max = { _id: "max", s: "" };
    max.s = "m".repeat(16 * MiB - BSON.calculateObjectSize(max));
    const small = Array.from({ length: 5000 }, (_, i) => ({
      _id: i,
      k: i % 7,
      s: "x".repeat(i % 300),
    }));
    const content: SnapshotContent = {
      generation: 3,
      collections: [
        collection("small", small),
        collection("empty", []),
        collection("big", [{ _id: "a", n: 1 }, max, { _id: "b", n: 2 }]),
      ],
    };
    const file = path.join(dir, "snapshot.bson");
    const stats = await writeSnapshot(file, content);
    expect(stats.docs).to.equal(5003);
    expect(fs.statSync(file).size).to.equal(stats.bytes);
    expect(fs.existsSync(`${file}.tmp`)).to.equal(false);

    const back = readAll(file);
    expect(back.summary).to.deep.equal({ generation: 3, collections: 3, docs: 5003 });
    expect(back.collections.map((c) => c.name)).to.deep.equal(["small", "empty", "big"]);
    expect(back.collections[0].indexes).to.deep.equal([{ v: 2, key: { k: 1 }, name: "k_1" }]);
    expect(back.collections[0].uuid.toString("hex")).to.equal(
      content.collections[0].uuid.toString("hex"),
    );
    expect(back.docs.get("app.small")).to.deep.equal(small);
    expect(back.docs.get("app.empty")).to.deep.equal([]);
    const big = back.docs.get("app.big")!;
    expect(big.map((d) => d._id)).to.deep.equal(["a", "max", "b"]);
    expect(big[1].s === max.s).to.equal(true);
  });

  it("bounds records by bytes: a record holds the target plus at most one document", async () => {
    const docs = Array.from({ length: 400 }, (_, i) => ({
      _id: i,
      s: "y".repeat(i === 200 ? 50_000 : 900),
    }));
    const file = path.join(dir, "snapshot.bson");
    await writeSnapshot(
      file,
      { generation: 1, collections: [collection("c", docs)] },
      { recordBytes: 10_000 },
    );
    const sizes = recordSizes(file);
    // meta, coll, then the documents, then end.
    const docRecords = sizes.slice(2, -1);
    expect(docRecords.length).to.be.greaterThan(30);
    const header = BSON.calculateObjectSize({ t: "docs", ns: "app.c", n: 0 });
    const small = BSON.calculateObjectSize(docs[0]);
    const large = BSON.calculateObjectSize(docs[200]);
    // Each record but a collection's last is closed as soon as it reaches the target.
    for (const size of docRecords.slice(0, -1)) {
      expect(size - header, `record of ${size} bytes`).to.be.at.least(10_000);
    }
    // So a record is at most the target plus one document: the large one, or a small one.
    const over = docRecords.filter((size) => size > header + 10_000 + small);
    expect(over).to.have.length(1);
    expect(over[0]).to.be.below(header + 10_000 + large);
    expect(readAll(file).docs.get("app.c")).to.deep.equal(docs);
  });

  it("gives documents their own bytes, not views of the read buffer reused for later records", async () => {
    // 3 MiB of documents with binary fields: the reader's 1 MiB buffer is refilled many times.
    const docs = Array.from({ length: 3000 }, (_, i) => ({
      _id: i,
      bin: new Binary(Buffer.alloc(1000, i % 251)),
    }));
    const file = path.join(dir, "snapshot.bson");
    await writeSnapshot(file, { generation: 1, collections: [collection("bin", docs)] });
    const back = readAll(file).docs.get("app.bin")!;
    back.forEach((doc, i) => {
      const bytes = (doc.bin as Binary).buffer;
      expect(bytes.length).to.equal(1000);
      expect(
        bytes.every((b) => b === i % 251),
        `document ${i}`,
      ).to.equal(true);
    });
  });

  it("leaves neither the file nor its temporary file when the write fails", async () => {
    const file = path.join(dir, "snapshot.bson");
    const docs = Array.from({ length: 100 }, (_, i) => ({ _id: i, s: "z".repeat(1000) }));
    let records = 0;
    const error = await writeSnapshot(
      file,
      { generation: 1, collections: [collection("c", docs)] },
      {
        recordBytes: 10_000,
        checkpoint: (stage) => {
          if (stage === "record" && ++records === 4) throw new Error("disk full (simulated)");
        },
      },
    ).catch((e: Error) => e);
    expect((error as Error).message).to.equal("disk full (simulated)");
    expect(fs.readdirSync(dir)).to.deep.equal([]);
  });

  it("refuses a truncated snapshot, one without its end record, and wrong counts", async () => {
    const file = path.join(dir, "snapshot.bson");
    const docs = Array.from({ length: 100 }, (_, i) => ({ _id: i, s: "w".repeat(1000) }));
    await writeSnapshot(
      file,
      { generation: 1, collections: [collection("c", docs)] },
      { recordBytes: 10_000 },
    );
    const whole = fs.readFileSync(file);
    const sizes = recordSizes(file);
    const sink = { collection: () => {}, documents: () => {} };

    fs.writeFileSync(file, whole.subarray(0, whole.length - 10));
    expect(() => readSnapshot(file, sink)).to.throw(CorruptFileError, /truncated/);

    const withoutEnd = whole.length - (8 + sizes[sizes.length - 1]);
    fs.writeFileSync(file, whole.subarray(0, withoutEnd));
    expect(() => readSnapshot(file, sink)).to.throw(CorruptFileError, /lacks its end record/);

    const lying = encodeRecord(BSON.serialize({ t: "end", collections: 1, docs: 99 }));
    fs.writeFileSync(file, Buffer.concat([whole.subarray(0, withoutEnd), lying]));
    expect(() => readSnapshot(file, sink)).to.throw(CorruptFileError, /counts/);
  });

  it("still reads version 1 snapshots (documents as an array in the record)", () => {
    const file = path.join(dir, "snapshot-v1.bson");
    const uuid = new UUID().toBinary();
    const record = (doc: Doc) => encodeRecord(BSON.serialize(doc));
    fs.writeFileSync(
      file,
      Buffer.concat([
        Buffer.from("EMSNP001", "latin1"),
        record({ t: "meta", generation: 7, createdAt: new Date() }),
        record({ t: "coll", db: "app", name: "old", options: {}, uuid, indexes: [] }),
        record({ t: "docs", ns: "app.old", docs: [{ _id: 1 }, { _id: 2 }] }),
        record({ t: "docs", ns: "app.old", docs: [{ _id: 3 }] }),
        record({ t: "end", collections: 1, docs: 3 }),
      ]),
    );
    const back = readAll(file);
    expect(back.summary).to.deep.equal({ generation: 7, collections: 1, docs: 3 });
    expect(back.docs.get("app.old")).to.deep.equal([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
  });
});
