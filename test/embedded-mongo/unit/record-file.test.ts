import { expect } from "chai";
import {
  CorruptFileError,
  encodeRecord,
  scanRecords,
} from "../../../services/embedded-mongo/storage/record-file.js";

const MAGIC = "TESTMAGC";

function file(...records: Buffer[]): Buffer {
  return Buffer.concat([Buffer.from(MAGIC, "latin1"), ...records]);
}

describe("embedded-mongo record files", () => {
  const a = encodeRecord(Buffer.from("first record"));
  const b = encodeRecord(Buffer.from("second record"));

  it("reads back every record", () => {
    const scan = scanRecords("f", file(a, b), MAGIC);
    expect(scan.records.map(String)).to.deep.equal(["first record", "second record"]);
    expect(scan.tornTailAt).to.equal(undefined);
  });

  it("reports a record cut short at the end as a torn tail", () => {
    const data = file(a, b.subarray(0, b.length - 3));
    const scan = scanRecords("f", data, MAGIC);
    expect(scan.records.map(String)).to.deep.equal(["first record"]);
    expect(scan.tornTailAt).to.equal(MAGIC.length + a.length);
    expect(scan.validLength).to.equal(MAGIC.length + a.length);
  });

  it("reports a bad checksum on the final record as a torn tail", () => {
    const damaged = Buffer.from(b);
    damaged[damaged.length - 1] ^= 1;
    const scan = scanRecords("f", file(a, damaged), MAGIC);
    expect(scan.records).to.have.length(1);
    expect(scan.tornTailAt).to.equal(MAGIC.length + a.length);
  });

  it("treats a bad record followed by more data as corruption", () => {
    const damaged = Buffer.from(a);
    damaged[damaged.length - 1] ^= 1;
    expect(() => scanRecords("f", file(damaged, b), MAGIC)).to.throw(CorruptFileError, /checksum/);
  });

  it("refuses a file of another kind", () => {
    expect(() => scanRecords("f", Buffer.from("NOTMAGIC..."), MAGIC)).to.throw(
      CorruptFileError,
      /header/,
    );
  });
});
