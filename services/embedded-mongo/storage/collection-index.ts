/**
 * One secondary (or `_id`) index: ordered entries (key tuple, document id) kept in a
 * SortedList. Handles compound and multikey keys, unique, sparse and partial indexes.
 */
import { compareValues, type Doc, isPlainObject } from "../bson-values.js";
import { valuesAtPath } from "../document-paths.js";
import { badValue, MongoCommandError } from "../errors.js";
import { MingoQuery } from "../query/mingo-context.js";
import { SortedList } from "./sorted-list.js";

export interface IndexSpec {
  v: number;
  key: Record<string, number>;
  name: string;
  unique?: boolean;
  sparse?: boolean;
  expireAfterSeconds?: number;
  partialFilterExpression?: Doc;
}

export interface IndexEntry {
  key: unknown[];
  id: string;
}

const SPEC_OPTIONS = new Set([
  "v",
  "key",
  "name",
  "unique",
  "sparse",
  "expireAfterSeconds",
  "partialFilterExpression",
  "background",
  "ns",
]);

/** Validates a createIndexes spec; unsupported kinds of index are refused by name. */
export function normalizeIndexSpec(raw: Doc): IndexSpec {
  const key = raw.key;
  if (!isPlainObject(key) || Object.keys(key).length === 0) {
    throw new MongoCommandError("FailedToParse", "index specification must have a non-empty 'key'");
  }
  const normalized: Record<string, number> = {};
  for (const [field, dir] of Object.entries(key)) {
    if (typeof dir === "string") {
      throw new MongoCommandError(
        "CommandNotSupported",
        `index type '${dir}' (on '${field}') is not supported by the embedded server`,
      );
    }
    const n = Number(dir);
    if (!Number.isFinite(n) || n === 0) {
      throw new MongoCommandError("CannotCreateIndex", `bad index key value for '${field}'`);
    }
    normalized[field] = n < 0 ? -1 : 1;
  }
  for (const option of Object.keys(raw)) {
    if (!SPEC_OPTIONS.has(option)) {
      throw new MongoCommandError(
        "InvalidIndexSpecificationOption",
        `index option '${option}' is not supported by the embedded server`,
      );
    }
  }
  if (typeof raw.name !== "string" || raw.name.length === 0) {
    throw new MongoCommandError("FailedToParse", "index specification must have a 'name'");
  }
  const spec: IndexSpec = { v: 2, key: normalized, name: raw.name };
  if (raw.unique) spec.unique = true;
  if (raw.sparse) spec.sparse = true;
  if (raw.expireAfterSeconds !== undefined) {
    const seconds = Number(raw.expireAfterSeconds);
    if (!Number.isFinite(seconds) || seconds < 0) throw badValue("expireAfterSeconds must be >= 0");
    if (Object.keys(normalized).length !== 1) {
      throw badValue("TTL indexes are single-field indexes, compound indexes do not support TTL");
    }
    spec.expireAfterSeconds = seconds;
  }
  if (raw.partialFilterExpression !== undefined) {
    if (!isPlainObject(raw.partialFilterExpression)) {
      throw badValue("partialFilterExpression must be an object");
    }
    if (hasRegex(raw.partialFilterExpression)) {
      // As mongod: a pattern would run on every write, inside index maintenance.
      throw new MongoCommandError(
        "CannotCreateIndex",
        "Expression not supported in partial index: $regex",
      );
    }
    spec.partialFilterExpression = raw.partialFilterExpression;
  }
  return spec;
}

function hasRegex(value: unknown): boolean {
  if (value instanceof RegExp) return true;
  if (Array.isArray(value)) return value.some(hasRegex);
  if (!isPlainObject(value)) return false;
  return Object.entries(value).some(([key, v]) => key === "$regex" || hasRegex(v));
}

export function sameIndexOptions(a: IndexSpec, b: IndexSpec): boolean {
  return (
    Boolean(a.unique) === Boolean(b.unique) &&
    Boolean(a.sparse) === Boolean(b.sparse) &&
    a.expireAfterSeconds === b.expireAfterSeconds &&
    compareValues(a.partialFilterExpression ?? null, b.partialFilterExpression ?? null) === 0
  );
}

export function sameKeyPattern(a: IndexSpec, b: IndexSpec): boolean {
  const ka = Object.entries(a.key);
  const kb = Object.entries(b.key);
  return ka.length === kb.length && ka.every(([f, d], i) => kb[i][0] === f && kb[i][1] === d);
}

export class CollectionIndex {
  readonly fields: string[];
  readonly paths: string[][];
  readonly directions: number[];
  readonly entries: SortedList<IndexEntry>;
  /** Per field: has any document had an array on this path (MongoDB's multikey paths). */
  readonly multikeyFields: boolean[];
  private readonly partial?: MingoQuery;

  constructor(readonly spec: IndexSpec) {
    this.fields = Object.keys(spec.key);
    this.paths = this.fields.map((f) => f.split("."));
    this.directions = this.fields.map((f) => spec.key[f]);
    this.multikeyFields = this.fields.map(() => false);
    const directions = this.directions;
    this.entries = new SortedList<IndexEntry>((a, b) => {
      for (let i = 0; i < directions.length; i++) {
        const c = compareValues(a.key[i], b.key[i]);
        if (c !== 0) return c * directions[i];
      }
      return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    });
    if (spec.partialFilterExpression) this.partial = new MingoQuery(spec.partialFilterExpression);
  }

  get name(): string {
    return this.spec.name;
  }

  get isMultikey(): boolean {
    return this.multikeyFields.some(Boolean);
  }

  /** Key tuples for a document, or none when a sparse/partial index leaves it out. */
  keysFor(doc: Doc): unknown[][] {
    if (this.partial && !this.partial.test(doc)) return [];
    if (this.paths.length === 1 && this.paths[0].length === 1 && !this.spec.sparse) {
      const value = doc[this.paths[0][0]];
      if (!Array.isArray(value)) return [[value === undefined ? null : value]];
    }
    const perField = this.paths.map((path) => valuesAtPath(doc, path));
    if (this.spec.sparse && perField.every((values) => values.every((v) => v === undefined))) {
      return [];
    }
    let arrays = 0;
    for (const values of perField) if (values.length > 1) arrays++;
    if (arrays > 1) {
      throw new MongoCommandError(
        "CannotIndexParallelArrays",
        `cannot index parallel arrays [${this.fields.join("] [")}] in index ${this.name}`,
      );
    }
    let tuples: unknown[][] = [[]];
    for (const values of perField) {
      const distinct = dedupe(values.map((v) => (v === undefined ? null : v)));
      const next: unknown[][] = [];
      for (const tuple of tuples) for (const v of distinct) next.push([...tuple, v]);
      tuples = next;
    }
    return tuples;
  }

  /** Records whether the document makes any path multikey. */
  noteMultikey(doc: Doc): void {
    for (let i = 0; i < this.paths.length; i++) {
      if (!this.multikeyFields[i] && touchesArray(doc, this.paths[i]))
        this.multikeyFields[i] = true;
    }
  }

  /**
   * Rebuilds the index from all documents at once (sort, then chunk): used to build a new
   * index and to load snapshots. Returns the first duplicate pair for unique indexes.
   */
  rebuild(docs: Iterable<[string, Doc]>): { key: unknown[]; ids: [string, string] } | undefined {
    const entries: IndexEntry[] = [];
    for (const [id, doc] of docs) {
      for (const key of this.keysFor(doc)) entries.push({ key, id });
      this.noteMultikey(doc);
    }
    const compare = this.entries.comparator;
    entries.sort(compare);
    if (this.spec.unique) {
      for (let i = 1; i < entries.length; i++) {
        const a = entries[i - 1];
        const b = entries[i];
        if (a.id !== b.id && keysEqual(a.key, b.key)) return { key: b.key, ids: [a.id, b.id] };
      }
    }
    this.entries.loadSorted(entries);
    return undefined;
  }

  add(keys: unknown[][], id: string): void {
    for (const key of keys) this.entries.insert({ key, id });
  }

  remove(keys: unknown[][], id: string): void {
    for (const key of keys) this.entries.remove({ key, id });
  }

  /** The id of another document holding one of these keys, for unique checks. */
  findConflict(
    keys: unknown[][],
    id: string,
    ignore?: (otherId: string) => boolean,
  ): string | undefined {
    for (const key of keys) {
      const pos = this.entries.lowerBound({ key, id: "" });
      for (const entry of this.entries.range(pos, this.entries.end())) {
        if (!keysEqual(entry.key, key)) break;
        if (entry.id !== id && !ignore?.(entry.id)) return entry.id;
      }
    }
    return undefined;
  }

  describe(): Doc {
    return { ...this.spec } as Doc;
  }
}

function touchesArray(value: unknown, path: string[], i = 0): boolean {
  if (Array.isArray(value)) return true;
  if (i === path.length || !isPlainObject(value)) return false;
  return touchesArray(value[path[i]], path, i + 1);
}

function keysEqual(a: unknown[], b: unknown[]): boolean {
  for (let i = 0; i < a.length; i++) if (compareValues(a[i], b[i]) !== 0) return false;
  return true;
}

function dedupe(values: unknown[]): unknown[] {
  if (values.length < 2) return values;
  const sorted = [...values].sort(compareValues);
  return sorted.filter((v, i) => i === 0 || compareValues(v, sorted[i - 1]) !== 0);
}

export function duplicateKeyError(
  ns: string,
  index: CollectionIndex,
  key: unknown[],
): MongoCommandError {
  const keyValue: Doc = {};
  index.fields.forEach((f, i) => {
    keyValue[f] = key[i];
  });
  const shown = index.fields.map((f, i) => `${f}: ${JSON.stringify(key[i] ?? null)}`).join(", ");
  return new MongoCommandError(
    "DuplicateKey",
    `E11000 duplicate key error collection: ${ns} index: ${index.name} dup key: { ${shown} }`,
    { extra: { keyPattern: { ...index.spec.key }, keyValue } },
  );
}
