import { type Timestamp, timestampDate } from "@bufbuild/protobuf/wkt";

/** A protobuf timestamp as the public API writes it: ISO 8601 UTC with milliseconds. */
export function iso(timestamp: Timestamp | undefined): string | undefined {
  return timestamp ? timestampDate(timestamp).toISOString() : undefined;
}

/** A timestamp every message of its kind has (its absence is a bug of the service). */
export function requiredIso(timestamp: Timestamp | undefined): string {
  if (!timestamp) throw new Error("a required timestamp is missing");
  return timestampDate(timestamp).toISOString();
}
