/**
 * MongoDB's limit on a stored document: 16 MiB of BSON (`maxBsonObjectSize` in `hello`).
 * Enforced before a write touches memory, with mongod's errors, so every stored document
 * fits a log record and a snapshot record whatever else is in them.
 */
import { BSON } from "bson";
import type { Doc } from "../bson-values.js";
import { MongoCommandError } from "../errors.js";

export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;

/** Throws mongod's error for an insert (BadValue) or update (17419) past the limit. */
export function checkDocumentSize(doc: Doc, write: "insert" | "update"): void {
  const size = BSON.calculateObjectSize(doc);
  if (size <= MAX_BSON_OBJECT_SIZE) return;
  if (write === "insert") {
    throw new MongoCommandError(
      "BadValue",
      `object to insert too large. size in bytes: ${size}, max size: ${MAX_BSON_OBJECT_SIZE}`,
    );
  }
  throw new MongoCommandError(
    "Location17419",
    `Resulting document after update is larger than ${MAX_BSON_OBJECT_SIZE}`,
  );
}
