import { create } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import { checkedTimestampDate } from "@movement-detection/shared/api";
import { errorInfo } from "@movement-detection/shared/errors";
import { expect } from "chai";

const at = (seconds: bigint, nanos = 0) => create(TimestampSchema, { seconds, nanos });

function refused(seconds: bigint, nanos = 0) {
  try {
    checkedTimestampDate(at(seconds, nanos), "archived_at");
  } catch (error) {
    return errorInfo(error);
  }
  throw new Error("accepted");
}

describe("checkedTimestampDate (Timestamps from callers)", () => {
  it("takes the first and the last second of the type's range, and nanos up to 999,999,999", () => {
    expect(checkedTimestampDate(at(-62_135_596_800n), "t").toISOString()).to.equal(
      "0001-01-01T00:00:00.000Z",
    );
    expect(checkedTimestampDate(at(253_402_300_799n, 999_000_000), "t").toISOString()).to.equal(
      "9999-12-31T23:59:59.999Z",
    );
    // A Date holds milliseconds: the conversion rounds, but the value is taken.
    expect(checkedTimestampDate(at(0n, 999_999_999), "t")).to.be.instanceOf(Date);
  });

  it("refuses one second past either end, nanos out of 0..999,999,999, and 2^63 - 1", () => {
    for (const [seconds, nanos] of [
      [-62_135_596_801n, 0],
      [253_402_300_800n, 0],
      [0n, -1],
      [0n, 1_000_000_000],
      [2n ** 63n - 1n, 0],
    ] as const) {
      expect(refused(seconds, nanos), `${seconds} ${nanos}`).to.include({
        reason: "FIELD_INVALID",
      });
      expect(refused(seconds, nanos).metadata).to.include({ field: "archived_at" });
    }
  });
});
