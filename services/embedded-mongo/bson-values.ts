/**
 * BSON value helpers the storage engine needs beyond what `bson` offers: MongoDB's
 * cross-type comparison order (used by indexes and sort), a clone that keeps BSON classes
 * intact (structuredClone would turn an ObjectId into a plain object) and a canonical
 * string key for `_id` values.
 */
import { EJSON } from "bson";

export type Doc = Record<string, unknown>;

interface BsonTagged {
  _bsontype?: string;
}

/** Sentinels used in index bounds: below/above every value, or the end of one type bracket. */
export class BoundSentinel {
  constructor(
    readonly typeOrder: number,
    readonly atEnd: boolean,
  ) {}
}
export const MIN_BOUND = new BoundSentinel(0, false);
export const MAX_BOUND = new BoundSentinel(100, true);

function bsonType(value: unknown): string | undefined {
  if (value !== null && typeof value === "object") return (value as BsonTagged)._bsontype;
  return undefined;
}

/** MongoDB's canonical type order: MinKey < null < numbers < strings < objects < arrays < ... */
export function typeOrder(value: unknown): number {
  if (value === undefined || value === null) return 2;
  switch (typeof value) {
    case "number":
    case "bigint":
      return 3;
    case "string":
      return 4;
    case "boolean":
      return 9;
    case "function":
      return 14;
  }
  if (value instanceof BoundSentinel) return value.typeOrder;
  if (Array.isArray(value)) return 6;
  if (value instanceof Date) return 10;
  if (value instanceof RegExp) return 12;
  switch (bsonType(value)) {
    case "MinKey":
      return 1;
    case "Int32":
    case "Double":
    case "Long":
    case "Decimal128":
      return 3;
    case "BSONSymbol":
      return 4;
    case "Binary":
      return 7;
    case "ObjectId":
      return 8;
    case "Timestamp":
      return 11;
    case "BSONRegExp":
      return 12;
    case "Code":
      return 13;
    case "MaxKey":
      return 15;
    case undefined:
      return 5;
    default:
      return 5;
  }
}

/** Numeric value as a JS number (Long and Decimal128 lose precision beyond 2^53, only for ordering). */
export function toNumber(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  const tag = bsonType(value);
  if (tag === "Long") return Number((value as { toBigInt(): bigint }).toBigInt());
  if (tag === "Int32" || tag === "Double") return (value as { value: number }).value;
  if (tag === "Decimal128") return Number.parseFloat(String(value));
  return Number.NaN;
}

function cmp<T>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** NaN before every other number and equal to itself, whichever BSON type held it. */
function compareNumbers(a: number, b: number): number {
  if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : -1;
  if (Number.isNaN(b)) return 1;
  return cmp(a, b);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** Total order over BSON values, following MongoDB's comparison/sort order. */
export function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  const ta = typeOrder(a);
  const tb = typeOrder(b);
  if (ta !== tb) return ta - tb;
  if (a instanceof BoundSentinel || b instanceof BoundSentinel) {
    const ea = a instanceof BoundSentinel ? (a.atEnd ? 1 : -1) : 0;
    const eb = b instanceof BoundSentinel ? (b.atEnd ? 1 : -1) : 0;
    return ea - eb;
  }
  switch (ta) {
    case 1:
    case 2:
    case 15:
      return 0;
    case 3: {
      if (typeof a === "number" && typeof b === "number") return compareNumbers(a, b);
      const la = bsonType(a) === "Long" ? (a as { toBigInt(): bigint }).toBigInt() : undefined;
      const lb = bsonType(b) === "Long" ? (b as { toBigInt(): bigint }).toBigInt() : undefined;
      if (la !== undefined && lb !== undefined) return cmp(la, lb);
      return compareNumbers(toNumber(a), toNumber(b));
    }
    case 4:
      return cmp(String(a), String(b));
    case 5:
      return compareObjects(a as Doc, b as Doc);
    case 6: {
      const xa = a as unknown[];
      const xb = b as unknown[];
      const n = Math.min(xa.length, xb.length);
      for (let i = 0; i < n; i++) {
        const c = compareValues(xa[i], xb[i]);
        if (c !== 0) return c;
      }
      return xa.length - xb.length;
    }
    case 7: {
      const ba = a as { buffer: Uint8Array; sub_type: number };
      const bb = b as { buffer: Uint8Array; sub_type: number };
      if (ba.buffer.length !== bb.buffer.length) return ba.buffer.length - bb.buffer.length;
      if (ba.sub_type !== bb.sub_type) return ba.sub_type - bb.sub_type;
      return compareBytes(ba.buffer, bb.buffer);
    }
    case 8:
      return compareBytes((a as { id: Uint8Array }).id, (b as { id: Uint8Array }).id);
    case 9:
      return cmp(a as boolean, b as boolean);
    case 10:
      return cmp((a as Date).getTime(), (b as Date).getTime());
    case 11:
      return cmp(
        (a as { toBigInt(): bigint }).toBigInt(),
        (b as { toBigInt(): bigint }).toBigInt(),
      );
    default:
      return cmp(String(a), String(b));
  }
}

function compareObjects(a: Doc, b: Doc): number {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const n = Math.min(ka.length, kb.length);
  for (let i = 0; i < n; i++) {
    const t = typeOrder(a[ka[i]]) - typeOrder(b[kb[i]]);
    if (t !== 0) return t;
    const k = cmp(ka[i], kb[i]);
    if (k !== 0) return k;
    const v = compareValues(a[ka[i]], b[kb[i]]);
    if (v !== 0) return v;
  }
  return ka.length - kb.length;
}

function isPlainObject(value: unknown): value is Doc {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const PROTO = "__proto__";

/** How deep documents nest, as MongoDB allows them (and below what a recursive walk survives). */
export const MAX_NESTING_DEPTH = 100;

/**
 * Why a document, an update or a filter cannot be taken, or undefined: nested deeper than
 * `maxDepth` (objects and arrays, the outermost at 1), or holding the field name `__proto__`
 * (alone or as a segment of a dotted name). Documents here are JavaScript objects, where
 * assigning that name sets the object's prototype instead of a field: a path through it would
 * reach every object of the process (`$set: {"__proto__.x": 1}`). MongoDB takes the name; this
 * store refuses it rather than store something else. Iterative: any depth is looked at safely.
 */
export function documentProblem(value: unknown, maxDepth = MAX_NESTING_DEPTH): string | undefined {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop() as [unknown, number];
    const isArray = Array.isArray(current);
    if (!isArray && !isPlainObject(current)) continue;
    if (depth > maxDepth) return `document nesting depth exceeds ${maxDepth}`;
    if (isArray) {
      for (const item of current) pending.push([item, depth + 1]);
      continue;
    }
    for (const key of Object.keys(current)) {
      if (isForbiddenPath(key)) return forbiddenNameProblem(key);
      pending.push([current[key], depth + 1]);
    }
  }
  return undefined;
}

/** True for `__proto__` and any dotted path with it as a segment. */
export function isForbiddenPath(path: string): boolean {
  // The split only for the rare name that holds it: every key of every write comes here.
  return path.includes(PROTO) && path.split(".").includes(PROTO);
}

export function forbiddenNameProblem(name: string): string {
  return `the field name '${name.slice(0, 200)}' is not supported by the embedded store`;
}

/** Deep copy of plain objects, arrays and dates; BSON class instances are immutable and shared. */
export function cloneValue<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneValue) as T;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (isPlainObject(value)) {
    const out: Doc = {};
    for (const key of Object.keys(value)) out[key] = cloneValue(value[key]);
    return out as T;
  }
  return value;
}

export function cloneDoc(doc: Doc): Doc {
  return cloneValue(doc);
}

/** Canonical map key for an `_id`: equal ids (1 and 1.0, same ObjectId) give equal keys. */
export function idKeyOf(id: unknown): string {
  if (typeof id === "string") return `s${id}`;
  if (typeof id === "number") return `n${id === 0 ? 0 : id}`;
  const tag = bsonType(id);
  if (tag === "ObjectId") return `o${(id as { toHexString(): string }).toHexString()}`;
  if (tag === "Int32" || tag === "Double" || tag === "Long") return `n${toNumber(id)}`;
  if (id instanceof Date) return `d${id.getTime()}`;
  return `x${EJSON.stringify(id as Doc, { relaxed: true })}`;
}

export function isOperatorObject(value: unknown): value is Doc {
  if (!isPlainObject(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys[0].startsWith("$");
}

export { isPlainObject };
