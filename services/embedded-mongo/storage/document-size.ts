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
  if (size > MAX_BSON_OBJECT_SIZE) throw tooLarge(size, write);
}

/**
 * The document's BSON, checked against the limit: one serialization for the check and the log
 * record (log-operations.ts, encodeDocumentOp) instead of a size computation and a serialization,
 * each a pass over the whole document (a tenth of the store's CPU per checkpoint write).
 */
export function encodeCheckedDocument(doc: Doc, write: "insert" | "update"): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = BSON.serialize(doc);
  } catch (error) {
    // bson refuses documents past its own buffer (17 MiB): mongod's error if that is why.
    checkDocumentSize(doc, write);
    throw error;
  }
  if (bytes.length > MAX_BSON_OBJECT_SIZE) throw tooLarge(bytes.length, write);
  return bytes;
}

function tooLarge(size: number, write: "insert" | "update"): MongoCommandError {
  if (write === "insert") {
    return new MongoCommandError(
      "BadValue",
      `object to insert too large. size in bytes: ${size}, max size: ${MAX_BSON_OBJECT_SIZE}`,
    );
  }
  return new MongoCommandError(
    "Location17419",
    `Resulting document after update is larger than ${MAX_BSON_OBJECT_SIZE}`,
  );
}
