/**
 * Applying an update to one document: operator updates (through mingo, plus
 * `$setOnInsert`, which mingo lacks), replacements and pipeline updates; and building the
 * document an upsert inserts from the filter's equality conditions.
 */
import { ObjectId } from "bson";
// From the updater itself: mingo's index merges its default operators over the given context,
// which would bring back the native $regex and mingo's own range operators (mingo-context.ts).
import { update as mingoUpdate, updateOne as mingoUpdateOne } from "mingo/updater";
import {
  cloneDoc,
  cloneValue,
  compareValues,
  type Doc,
  documentProblem,
  forbiddenNameProblem,
  idKeyOf,
  isForbiddenPath,
  isOperatorObject,
  isPlainObject,
  MAX_NESTING_DEPTH,
  typeOrder,
} from "../bson-values.js";
import { MongoCommandError } from "../errors.js";
import { idFirst } from "./matcher.js";
import { MINGO_OPTIONS } from "./mingo-context.js";

const SUPPORTED_OPERATORS = new Set([
  "$set",
  "$unset",
  "$inc",
  "$mul",
  "$max",
  "$min",
  "$push",
  "$addToSet",
  "$pull",
  "$pullAll",
  "$pop",
  "$rename",
  "$currentDate",
  "$bit",
  "$setOnInsert",
]);

export type UpdateSpec = Doc | Doc[];

export function isReplacement(update: UpdateSpec): boolean {
  return !Array.isArray(update) && !Object.keys(update).some((k) => k.startsWith("$"));
}

/** Rejects malformed updates before any document is touched. */
export function validateUpdate(update: unknown): asserts update is UpdateSpec {
  // Paths, values and pipeline stages alike (documentProblem); an operator and its arguments
  // wrap the values in two more levels.
  const problem = documentProblem(update, MAX_NESTING_DEPTH + 2);
  if (problem !== undefined) throw new MongoCommandError("BadValue", problem);
  if (Array.isArray(update)) return;
  if (!isPlainObject(update)) {
    throw new MongoCommandError("FailedToParse", "update must be an object or a pipeline array");
  }
  const keys = Object.keys(update);
  const operators = keys.filter((k) => k.startsWith("$"));
  if (operators.length === 0) return;
  if (operators.length !== keys.length) {
    throw new MongoCommandError(
      "FailedToParse",
      "an update document mixes update operators and plain fields",
    );
  }
  const paths: string[] = [];
  for (const op of operators) {
    if (!SUPPORTED_OPERATORS.has(op)) {
      throw new MongoCommandError(
        "FailedToParse",
        `Unknown modifier: ${op}. Expected a valid update modifier or pipeline-style update specified as an array`,
      );
    }
    const args = update[op];
    if (!isPlainObject(args)) {
      throw new MongoCommandError(
        "FailedToParse",
        `Modifiers operate on fields but we found type ${Array.isArray(args) ? "array" : typeof args} instead. For example: {$mod: {<field>: ...}} not {${op}: ${JSON.stringify(args)}}`,
      );
    }
    for (const path of Object.keys(args)) {
      if (op === "$rename" && isForbiddenPath(String(args[path]))) {
        throw new MongoCommandError("BadValue", forbiddenNameProblem(String(args[path])));
      }
      if (op === "$rename") paths.push(String(args[path]));
      paths.push(path);
    }
  }
  const sorted = paths.map((p) => p.replace(/\.\$(\[[^\]]*\])?/g, "")).sort();
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i] === sorted[i - 1] || sorted[i].startsWith(`${sorted[i - 1]}.`)) {
      throw new MongoCommandError(
        "ConflictingUpdateOperators",
        `Updating the path '${sorted[i]}' would create a conflict at '${sorted[i - 1]}'`,
      );
    }
  }
}

export interface UpdateOutcome {
  doc: Doc;
  modified: boolean;
}

/** Returns the updated copy of `original`; the stored document is never mutated. */
export function applyUpdate(
  original: Doc,
  update: UpdateSpec,
  options: { filter?: Doc; arrayFilters?: Doc[]; inserting?: boolean } = {},
): UpdateOutcome {
  let next: Doc;
  if (Array.isArray(update)) {
    const docs = [cloneDoc(original)];
    try {
      mingoUpdateOne(docs, {}, update as never, {}, MINGO_OPTIONS);
    } catch (error) {
      if (error instanceof MongoCommandError) throw error;
      throw new MongoCommandError(
        "BadValue",
        `invalid pipeline update: ${(error as Error).message}`,
      );
    }
    next = docs[0];
  } else if (isReplacement(update)) {
    next = { _id: original._id, ...cloneDoc(update) };
    if (update._id !== undefined) next._id = update._id;
  } else {
    next = cloneDoc(original);
    const modifier: Doc = { ...update };
    const onInsert = modifier.$setOnInsert as Doc | undefined;
    delete modifier.$setOnInsert;
    if (options.inserting && onInsert) modifier.$set = { ...(modifier.$set as Doc), ...onInsert };
    rejectWideNumberArithmetic(next, modifier);
    rejectTypeMismatches(next, modifier);
    if (Object.keys(modifier).length > 0 && !applyPlainFieldUpdate(next, modifier)) {
      try {
        mingoUpdate(next, modifier as never, options.arrayFilters, options.filter ?? {}, {
          queryOptions: MINGO_OPTIONS,
        });
      } catch (error) {
        throw toUpdateError(error);
      }
    }
  }
  if (original._id !== undefined && idKeyOf(next._id) !== idKeyOf(original._id)) {
    throw new MongoCommandError(
      "ImmutableField",
      "Performing an update on the path '_id' would modify the immutable field '_id'",
    );
  }
  next = idFirst(next);
  return {
    doc: next,
    modified: compareValues(original, next) !== 0 || !sameKeyOrder(original, next),
  };
}

/**
 * The common updates, `$set`, `$unset` and `$inc` of plain field paths through embedded
 * documents, applied without mingo: mingo merges its operator tables into a fresh context on
 * every update (about 100 µs, most of the cost of a checkpoint write). Returns false, having
 * changed nothing, for anything else (other operators, array indexes or positional paths, a path
 * through an array or a scalar, `$inc` of anything but a JavaScript number), which mingo then
 * applies with MongoDB's semantics.
 */
function applyPlainFieldUpdate(doc: Doc, modifier: Doc): boolean {
  // Checked in full before anything changes; paths never overlap (validateUpdate).
  const changes: { segments: string[]; value?: unknown; unset: boolean }[] = [];
  for (const [op, args] of Object.entries(modifier)) {
    if (!PLAIN_FIELD_OPERATORS.has(op) || !isPlainObject(args)) return false;
    for (const [path, operand] of Object.entries(args)) {
      const segments = path.split(".");
      if (!segments.every(isPlainFieldName)) return false;
      const parent = parentOf(doc, segments);
      if (parent === false) return false;
      if (op === "$unset") {
        changes.push({ segments, unset: true });
      } else if (op === "$set") {
        changes.push({ segments, value: cloneValue(operand), unset: false });
      } else {
        const current = parent ? ownField(parent, segments[segments.length - 1]) : undefined;
        if (typeof operand !== "number") return false;
        if (current !== undefined && typeof current !== "number") return false;
        changes.push({ segments, value: ((current as number) ?? 0) + operand, unset: false });
      }
    }
  }
  for (const { segments, value, unset } of changes) {
    if (!unset) {
      setPath(doc, segments, value);
      continue;
    }
    const parent = parentOf(doc, segments);
    if (parent) delete parent[segments[segments.length - 1]];
  }
  return true;
}

const PLAIN_FIELD_OPERATORS = new Set(["$set", "$unset", "$inc"]);

/** A field name that is neither empty, an operator, nor an array index. */
/** A document's field: its own, never one it inherits (`constructor`, `toString`). */
function ownField(doc: Doc, name: string): unknown {
  return Object.hasOwn(doc, name) ? doc[name] : undefined;
}

function isPlainFieldName(name: string): boolean {
  return name.length > 0 && name[0] !== "$" && !/^\d+$/.test(name);
}

/**
 * The embedded document holding the path's last field; undefined when part of the way is missing;
 * false when the way crosses anything but an embedded document.
 */
function parentOf(doc: Doc, segments: string[]): Doc | undefined | false {
  let current: Doc = doc;
  for (const name of segments.slice(0, -1)) {
    const next = ownField(current, name);
    if (next === undefined) return undefined;
    if (!isPlainObject(next)) return false;
    current = next;
  }
  return current;
}

const ARITHMETIC = ["$inc", "$mul", "$min", "$max", "$bit"];

/** A number held in a BSON class (Long beyond 2^53, Decimal128): mingo cannot do arithmetic on it. */
function isWideNumber(value: unknown): boolean {
  return typeof value === "object" && value !== null && typeOrder(value) === 3;
}

function rejectWideNumberArithmetic(doc: Doc, modifier: Doc): void {
  for (const op of ARITHMETIC) {
    const args = modifier[op];
    if (!isPlainObject(args)) continue;
    for (const [path, operand] of Object.entries(args)) {
      const current = path
        .split(".")
        .reduce<unknown>((v, k) => (isPlainObject(v) ? v[k] : undefined), doc);
      if (isWideNumber(operand) || isWideNumber(current)) {
        throw new MongoCommandError(
          "BadValue",
          `${op} on '${path}' with an int64 beyond 2^53 or a Decimal128 is not supported by the embedded server`,
        );
      }
    }
  }
}

/** Operators on numbers, and on arrays: what mongod refuses to apply to a value of another type. */
const NUMERIC_OPERATORS = new Set(["$inc", "$mul"]);
const ARRAY_OPERATORS = new Set(["$push", "$addToSet", "$pop", "$pull", "$pullAll"]);

/**
 * mongod refuses an update it cannot apply as written, where mingo skips it silently (the client
 * is told the document matched and was not modified): arithmetic on a value that is not a number
 * (TypeMismatch, 14), an array operator on a value that is not an array (BadValue, 2), a path
 * through a value that is neither a document nor an array (PathNotViable, 28). Paths through
 * arrays are left to mingo (their semantics depend on indexes and positional operators).
 */
function rejectTypeMismatches(doc: Doc, modifier: Doc): void {
  for (const [op, args] of Object.entries(modifier)) {
    if (!isPlainObject(args) || op === "$unset" || op === "$rename") continue;
    for (const [path, operand] of Object.entries(args)) {
      const segments = path.split(".");
      let current: unknown = doc;
      let at = 0;
      for (; at < segments.length - 1; at++) {
        const next = ownField(current as Doc, segments[at]);
        if (next === undefined || Array.isArray(next)) break;
        if (!isPlainObject(next)) {
          throw new MongoCommandError(
            "PathNotViable",
            `Cannot create field '${segments[at + 1]}' in element {${segments[at]}: ${describeValue(next)}}`,
          );
        }
        current = next;
      }
      if (at < segments.length - 1) continue; // missing on the way (created) or an array
      const value = ownField(current as Doc, segments[at]);
      if (NUMERIC_OPERATORS.has(op)) {
        if (!isNumber(operand)) {
          throw new MongoCommandError(
            "TypeMismatch",
            `Cannot ${op === "$inc" ? "increment" : "multiply"} with non-numeric argument: {${path}: ${describeValue(operand)}}`,
          );
        }
        if (value !== undefined && !isNumber(value)) {
          throw new MongoCommandError(
            "TypeMismatch",
            `Cannot apply ${op} to a value of non-numeric type. {_id: ${describeValue(doc._id)}} has the field '${segments[at]}' of non-numeric type ${typeName(value)}`,
          );
        }
      } else if (ARRAY_OPERATORS.has(op) && value !== undefined && !Array.isArray(value)) {
        throw new MongoCommandError(
          op === "$pop" ? "TypeMismatch" : "BadValue",
          `The field '${path}' must be an array but is of type ${typeName(value)} in document {_id: ${describeValue(doc._id)}}`,
        );
      }
    }
  }
}

function isNumber(value: unknown): boolean {
  return (
    typeof value === "number" ||
    (typeof value === "object" && value !== null && typeOrder(value) === 3)
  );
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (Array.isArray(value)) return "array";
  if (isPlainObject(value)) return "object";
  return typeof value;
}

function describeValue(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function sameKeyOrder(a: Doc, b: Doc): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
}

function toUpdateError(error: unknown): MongoCommandError {
  if (error instanceof MongoCommandError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (message.includes("immutable field")) return new MongoCommandError("ImmutableField", message);
  return new MongoCommandError("BadValue", `update failed: ${message}`);
}

/** The document an upsert inserts: the filter's equality fields, then the update applied. */
export function buildUpsertDocument(filter: Doc, update: UpdateSpec, arrayFilters?: Doc[]): Doc {
  // The filter's equalities become fields of the new document (setPath).
  const problem = documentProblem(filter, MAX_NESTING_DEPTH + 2);
  if (problem !== undefined) throw new MongoCommandError("BadValue", problem);
  const seed: Doc = {};
  collectEqualities(filter, seed);
  let doc: Doc;
  if (!Array.isArray(update) && isReplacement(update)) {
    doc = cloneDoc(update);
    if (doc._id === undefined && seed._id !== undefined) doc._id = seed._id;
  } else {
    // Not the filter as mingo's condition: the seed need not match it (an `$or` filter seeds
    // nothing), and mingo would then silently skip the whole update.
    doc = applyUpdate(seed, update, { arrayFilters, inserting: true }).doc;
  }
  if (doc._id === undefined) doc._id = new ObjectId();
  return idFirst(doc);
}

function collectEqualities(filter: Doc, into: Doc): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and" && Array.isArray(value)) {
      for (const clause of value) if (isPlainObject(clause)) collectEqualities(clause, into);
      continue;
    }
    if (key.startsWith("$")) continue;
    let literal: unknown;
    if (isOperatorObject(value)) {
      if (!("$eq" in value)) continue;
      literal = value.$eq;
    } else if (value instanceof RegExp) {
      continue;
    } else {
      literal = value;
    }
    setPath(into, key.split("."), cloneDoc({ v: literal }).v);
  }
}

function setPath(doc: Doc, path: string[], value: unknown): void {
  let target = doc;
  for (let i = 0; i < path.length - 1; i++) {
    const next = ownField(target, path[i]);
    if (!isPlainObject(next)) target[path[i]] = {};
    target = target[path[i]] as Doc;
  }
  target[path[path.length - 1]] = value;
}
