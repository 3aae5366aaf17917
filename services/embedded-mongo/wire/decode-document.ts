/**
 * A command's BSON document, decoded with its strings checked for valid UTF-8 as bson's own
 * validation checks them, at a fraction of the cost for large strings.
 *
 * bson validates a string by decoding it and then scanning every character for U+FFFD, the mark
 * a malformed sequence leaves, in a JavaScript loop: for a detection checkpoint (a 13 KB engine
 * snapshot and 5 KB of recent events in strings) that loop was an eighth of the store's CPU per
 * write. Decoding without it and then asking each string whether it holds U+FFFD at all gives the
 * same verdict: a string with no U+FFFD came from valid bytes, and V8 answers that question for a
 * pure-ASCII string without reading it. Only a document with a U+FFFD somewhere (malformed, or a
 * genuine U+FFFD the client sent) is decoded again with bson's validation, which then throws or
 * returns the same document. Values that hold strings this check does not walk (Code, Symbol,
 * DBRef), and documents nested deeper than MongoDB allows (refused later, and a recursive walk
 * must not run out of stack on them), take that second decoding too.
 */
import { BSON, BSONSymbol, Code, DBRef } from "bson";
import { type Doc, isPlainObject, MAX_NESTING_DEPTH } from "../bson-values.js";

const DECODING = { promoteLongs: true, promoteValues: true, promoteBuffers: false } as const;
const UNCHECKED = { ...DECODING, validation: { utf8: false } } as const;
const REPLACEMENT_CHARACTER = "\uFFFD";

/** Decodes one BSON document; throws bson's error for malformed bytes or invalid UTF-8. */
export function decodeDocument(bytes: Uint8Array): Doc {
  const doc = BSON.deserialize(bytes, UNCHECKED);
  return mayHoldInvalidUtf8(doc) ? BSON.deserialize(bytes, DECODING) : doc;
}

/** False only when no string value anywhere in `value` can have come from malformed UTF-8. */
function mayHoldInvalidUtf8(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return value.includes(REPLACEMENT_CHARACTER);
  if (typeof value !== "object" || value === null) return false;
  if (depth > MAX_NESTING_DEPTH) return true;
  if (Array.isArray(value)) return value.some((item) => mayHoldInvalidUtf8(item, depth + 1));
  if (isPlainObject(value)) {
    for (const key in value) if (mayHoldInvalidUtf8(value[key], depth + 1)) return true;
    return false;
  }
  return value instanceof Code || value instanceof BSONSymbol || value instanceof DBRef;
}
