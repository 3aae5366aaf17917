import { type Timestamp, timestampDate } from "@bufbuild/protobuf/wkt";
import { Reason } from "../errors/reasons.js";
import { Code, serviceError } from "../errors/service-error.js";

/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the range of google.protobuf.Timestamp. */
const MIN_SECONDS = -62_135_596_800n;
const MAX_SECONDS = 253_402_300_799n;

/**
 * A Timestamp from a caller as a Date, or INVALID_ARGUMENT FIELD_INVALID naming `field` when it
 * is outside the type's range (seconds from year 1 to 9999, nanos 0 to 999,999,999). Unchecked,
 * `seconds: 2^63 - 1` became 1970-01-01 and negative nanos year 0.
 */
export function checkedTimestampDate(timestamp: Timestamp, field: string): Date {
  const valid =
    timestamp.seconds >= MIN_SECONDS &&
    timestamp.seconds <= MAX_SECONDS &&
    timestamp.nanos >= 0 &&
    timestamp.nanos <= 999_999_999;
  if (!valid) {
    throw serviceError(
      Code.InvalidArgument,
      Reason.fieldInvalid,
      `${field} is not a valid timestamp (years 1 to 9999)`,
      { field },
    );
  }
  return timestampDate(timestamp);
}
