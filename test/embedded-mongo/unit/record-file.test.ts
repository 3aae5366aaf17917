import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import {
  CorruptFileError,
  encodeRecord,
  encodeRecordParts,
  RecordReader,
} from "../../../services/embedded-mongo/storage/record-file.js";

const MAGIC = "TESTMAGC";

describe("embedded-mongo record files", () => {
  let dir: string;
  let count = 0;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "embedded-mongo-records-"));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  function file(...parts: Buffer[]): string {
    const name = path.join(dir, `f${count++}`);
    fs.writeFileSync(name, Buffer.concat([Buffer.from(MAGIC, "latin1"), ...parts]));
    return name;
  }

  /** Every record's payload (copied), and how the file ended. */
  function readAll(name: string, magics = [MAGIC]) {
    const reader = RecordReader.open(name, magics);
    const records: Buffer[] = [];
    for (let p = reader.next(); p; p = reader.next()) records.push(Buffer.from(p));
    return { records, validLength: reader.validLength, tornTailAt: reader.tornTailAt };
  }

  const a = encodeRecord(Buffer.from("first record"));
  const b = encodeRecord(Buffer.from("second record"));

  it("reads back every record", () => {
    const scan = readAll(file(a, b));
    expect(scan.records.map(String)).to.deep.equal(["first record", "second record"]);
    expect(scan.tornTailAt).to.equal(undefined);
    expect(scan.validLength).to.equal(MAGIC.length + a.length + b.length);
  });

  it("frames a record given in parts exactly as the same bytes given whole", () => {
    const parts = [Buffer.from("one "), Buffer.from("two "), Buffer.alloc(0), Buffer.from("3")];
    expect(encodeRecordParts(parts).equals(encodeRecord(Buffer.concat(parts)))).to.equal(true);
  });

  it("streams records larger than its read-ahead and many small ones across refills", () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 5, 7);
    big[0] = 1;
    big[big.length - 1] = 9;
    const small = Array.from({ length: 40_000 }, (_, i) => encodeRecord(Buffer.from(`r${i}`)));
    const scan = readAll(
      file(...small.slice(0, 20_000), encodeRecord(big), ...small.slice(20_000)),
    );
    expect(scan.records).to.have.length(40_001);
    expect(scan.records[20_000].equals(big)).to.equal(true);
    expect(String(scan.records[19_999])).to.equal("r19999");
    expect(String(scan.records[40_000])).to.equal("r39999");
    expect(scan.tornTailAt).to.equal(undefined);
  });

  it("reports a record cut short at the end as a torn tail", () => {
    const scan = readAll(file(a, b.subarray(0, b.length - 3)));
    expect(scan.records.map(String)).to.deep.equal(["first record"]);
    expect(scan.tornTailAt).to.equal(MAGIC.length + a.length);
    expect(scan.validLength).to.equal(MAGIC.length + a.length);
  });

  it("reports a header cut short, and a file cut inside its magic, as torn", () => {
    expect(readAll(file(a, b.subarray(0, 5))).tornTailAt).to.equal(MAGIC.length + a.length);
    const name = path.join(dir, "short");
    fs.writeFileSync(name, MAGIC.slice(0, 3));
    expect(readAll(name)).to.deep.include({ records: [], validLength: 0, tornTailAt: 0 });
  });

  it("reports a bad checksum on the final record as a torn tail", () => {
    const damaged = Buffer.from(b);
    damaged[damaged.length - 1] ^= 1;
    const scan = readAll(file(a, damaged));
    expect(scan.records).to.have.length(1);
    expect(scan.tornTailAt).to.equal(MAGIC.length + a.length);
  });

  it("treats a length damaged to run past the end, with whole records after it, as corruption", () => {
    const c = encodeRecord(Buffer.from("third record"));
    for (const bit of [24, 20, 8]) {
      const damaged = Buffer.from(b);
      damaged.writeUInt32LE(damaged.readUInt32LE(0) ^ (1 << bit), 0);
      expect(() => readAll(file(a, damaged, c)), `bit ${bit}`).to.throw(
        CorruptFileError,
        /runs past the end of the file, yet a complete record follows/,
      );
    }
  });

  it("still cuts a torn tail: the last record cut short, its length running past the end", () => {
    // The length says more than the file holds, and what follows is part of the same record.
    const big = encodeRecord(Buffer.from("x".repeat(500)));
    const scan = readAll(file(a, big.subarray(0, 300)));
    expect(scan.records.map(String)).to.deep.equal(["first record"]);
    expect(scan.tornTailAt).to.equal(MAGIC.length + a.length);
  });

  it("takes a tail of up to 64 MiB for a torn append, and a longer one for a damaged length", () => {
    // Sparse files: the length claims 512 MiB, and zeros (no whole record) follow the header.
    const limit = 64 * 1024 * 1024;
    const withTail = (remaining: number) => {
      const name = file(a);
      const header = Buffer.alloc(8);
      header.writeUInt32LE(512 * 1024 * 1024, 0);
      fs.appendFileSync(name, header);
      fs.truncateSync(name, MAGIC.length + a.length + remaining);
      return name;
    };
    const atLimit = readAll(withTail(limit));
    expect(atLimit.records.map(String)).to.deep.equal(["first record"]);
    expect(atLimit.tornTailAt).to.equal(MAGIC.length + a.length);
    expect(() => readAll(withTail(limit + 1))).to.throw(
      CorruptFileError,
      `yet ${limit + 1} bytes follow it, more than any append writes`,
    );
  });

  it("treats a bad record followed by more data as corruption", () => {
    const damaged = Buffer.from(a);
    damaged[damaged.length - 1] ^= 1;
    expect(() => readAll(file(damaged, b))).to.throw(CorruptFileError, /checksum/);
  });

  it("refuses a file of another kind, and accepts any of the allowed magics", () => {
    const name = path.join(dir, "other");
    fs.writeFileSync(name, "NOTMAGIC...");
    expect(() => readAll(name)).to.throw(CorruptFileError, /header/);
    expect(RecordReader.open(name, [MAGIC, "NOTMAGIC"]).magic).to.equal("NOTMAGIC");
  });
});
