/**
 * Filters and projections through mingo. A malformed or unsupported operator is reported
 * as BadValue naming it, never ignored.
 */
import { cloneDoc, compareValues, type Doc, isPlainObject, typeOrder } from "../bson-values.js";
import { valuesAtPath } from "../document-paths.js";
import { badValue, MongoCommandError } from "../errors.js";
import { MINGO_OPTIONS, MingoQuery } from "./mingo-context.js";
import { isRangeOperatorName, RANGE_OPERATORS } from "./range-operators.js";

export type Matcher = (doc: Doc) => boolean;

export { MINGO_OPTIONS };

const matchAll: Matcher = () => true;

/** Our own errors (a regex bound, the time limit) pass through mingo unchanged. */
function mingoError(error: unknown, what: string): MongoCommandError {
  if (error instanceof MongoCommandError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return badValue(`${what}: ${message}`);
}

/** `filter` as mingo reads it: resolve `$options: "x"` first (withRegexOptionsResolved). */
export function compileFilter(filter: unknown): Matcher {
  if (filter === undefined || filter === null) return matchAll;
  if (typeof filter !== "object" || Array.isArray(filter)) {
    throw new MongoCommandError("TypeMismatch", "filter must be an object");
  }
  if (Object.keys(filter).length === 0) return matchAll;
  const fast = plainFieldMatcher(filter as Doc);
  if (fast) return fast;
  let query: MingoQuery;
  try {
    query = new MingoQuery(filter as Doc);
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

/** Scalar types whose equality semantics are plain value comparison. */
function isSimpleScalar(value: unknown): boolean {
  const order = typeOrder(value);
  // numbers, strings, ObjectId, booleans, dates
  return (
    (order === 3 || order === 4 || order === 8 || order === 9 || order === 10) &&
    !isPlainObject(value)
  );
}

/**
 * Fast path for the most common filters: fields compared with a scalar, `{ field: scalar }` or
 * `{ field: { $gte: scalar, $lt: scalar } }` (any of $gt, $gte, $lt, $lte), all of them to hold.
 * Equality: the field's value, or an element of an array value, equals the scalar (MongoDB's
 * equality semantics for scalars). Ranges: the very functions mingo evaluates them with
 * (range-operators.ts). Building a mingo query costs tens of microseconds, about what a small
 * update costs in all, and detection's record writes and reads filter on ranges. Anything else
 * goes through mingo.
 */
function plainFieldMatcher(filter: Doc): Matcher | undefined {
  const conditions: Matcher[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key.startsWith("$")) return undefined;
    if (isSimpleScalar(value)) {
      const path = key.split(".");
      const order = typeOrder(value);
      conditions.push((doc) =>
        valuesAtPath(doc, path).some(
          (v) => typeOrder(v) === order && compareValues(v, value) === 0,
        ),
      );
      continue;
    }
    const ranges = rangeConditions(key, value);
    if (!ranges) return undefined;
    conditions.push(...ranges);
  }
  return (doc) => conditions.every((condition) => condition(doc));
}

/** `{ $gt|$gte|$lt|$lte: scalar, ... }` of `key` as matchers; undefined for anything else. */
function rangeConditions(key: string, value: unknown): Matcher[] | undefined {
  if (!isPlainObject(value)) return undefined;
  const entries = Object.entries(value);
  if (entries.length === 0) return undefined;
  const conditions: Matcher[] = [];
  for (const [operator, operand] of entries) {
    if (!isRangeOperatorName(operator) || !isSimpleScalar(operand)) return undefined;
    conditions.push(RANGE_OPERATORS[operator](key, operand));
  }
  return conditions;
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
  const topLevel = topLevelProjection(spec);
  if (topLevel) return docs.map(topLevel);
  const positional = Object.keys(spec).some((k) => k.endsWith(".$"));
  try {
    // mingo applies nested exclusions ("a.b": 0) to the nested objects in place: it must never
    // see the stored documents themselves, or a read would delete data.
    const input = touchesNestedFields(spec) ? docs.map(cloneDoc) : docs;
    const projected = new MingoQuery(positional ? filter : {}).find(input, spec).all() as Doc[];
    return projected.map(idFirst);
  } catch (error) {
    throw mingoError(error, "unsupported or invalid projection");
  }
}

/**
 * The common projections, top-level fields only, all included or all excluded (`_id` may be
 * excluded from an inclusion): applied here, in the stored document's field order as MongoDB
 * does, because a mingo query costs tens of microseconds to build. Anything else (paths,
 * operators, expressions, mixed flags) goes through mingo.
 */
function topLevelProjection(spec: Doc): ((doc: Doc) => Doc) | undefined {
  const included = new Set<string>();
  const excluded = new Set<string>();
  for (const [key, flag] of Object.entries(spec)) {
    if (key.length === 0 || key.includes(".") || key.startsWith("$")) return undefined;
    if (flag === 1 || flag === true) included.add(key);
    else if (flag === 0 || flag === false) excluded.add(key);
    else return undefined;
  }
  if (included.size > 0) {
    if (excluded.size > 1 || (excluded.size === 1 && !excluded.has("_id"))) return undefined;
    if (!excluded.has("_id")) included.add("_id");
    return (doc) => {
      const out: Doc = {};
      for (const key of Object.keys(doc)) if (included.has(key)) out[key] = doc[key];
      return out;
    };
  }
  return (doc) => {
    const out: Doc = {};
    for (const key of Object.keys(doc)) if (!excluded.has(key)) out[key] = doc[key];
    return out;
  };
}

function touchesNestedFields(spec: Doc): boolean {
  return Object.entries(spec).some(
    ([key, value]) => key.includes(".") || (typeof value === "object" && value !== null),
  );
}

/** MongoDB keeps `_id` as the first field of a returned document. */
export function idFirst(doc: Doc): Doc {
  const keys = Object.keys(doc);
  if (!("_id" in doc) || keys[0] === "_id") return doc;
  const out: Doc = { _id: doc._id };
  for (const k of keys) if (k !== "_id") out[k] = doc[k];
  return out;
}
