/**
 * Filters and projections through mingo. A malformed or unsupported operator is reported
 * as BadValue naming it, never ignored.
 */
import { Query } from "mingo";
import type { Doc } from "../bson-values.js";
import { badValue, MongoCommandError } from "../errors.js";

export type Matcher = (doc: Doc) => boolean;

const matchAll: Matcher = () => true;

function mingoError(error: unknown, what: string): MongoCommandError {
  const message = error instanceof Error ? error.message : String(error);
  return badValue(`${what}: ${message}`);
}

export function compileFilter(filter: unknown): Matcher {
  if (filter === undefined || filter === null) return matchAll;
  if (typeof filter !== "object" || Array.isArray(filter)) {
    throw new MongoCommandError("TypeMismatch", "filter must be an object");
  }
  if (Object.keys(filter).length === 0) return matchAll;
  let query: Query;
  try {
    query = new Query(filter as Doc);
  } catch (error) {
    throw mingoError(error, "unsupported or invalid query");
  }
  return (doc) => {
    try {
      return query.test(doc);
    } catch (error) {
      throw mingoError(error, "query evaluation failed");
    }
  };
}

export function isEmptyProjection(projection: unknown): boolean {
  return (
    projection === undefined || projection === null || Object.keys(projection as Doc).length === 0
  );
}

/** Applies a find projection; `filter` is needed for positional (`field.$`) projections. */
export function projectDocuments(docs: Doc[], projection: unknown, filter: Doc = {}): Doc[] {
  if (isEmptyProjection(projection) || docs.length === 0) return docs;
  const spec = projection as Doc;
  const positional = Object.keys(spec).some((k) => k.endsWith(".$"));
  try {
    const projected = new Query(positional ? filter : {}).find(docs, spec).all() as Doc[];
    return projected.map(idFirst);
  } catch (error) {
    throw mingoError(error, "unsupported or invalid projection");
  }
}

/** MongoDB keeps `_id` as the first field of a returned document. */
export function idFirst(doc: Doc): Doc {
  const keys = Object.keys(doc);
  if (!("_id" in doc) || keys[0] === "_id") return doc;
  const out: Doc = { _id: doc._id };
  for (const k of keys) if (k !== "_id") out[k] = doc[k];
  return out;
}
