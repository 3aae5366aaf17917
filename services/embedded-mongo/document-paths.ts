/**
 * Reading values at dotted paths the way MongoDB's indexes and sorts do: arrays along the
 * path are traversed element by element, and a missing value reads as null.
 */
import { compareValues, type Doc, isPlainObject } from "./bson-values.js";

/**
 * A path's values with arrays traversed and leaf arrays flattened (MongoDB's multikey
 * expansion). A missing value reads as `undefined`; the result is never empty.
 */
export function valuesAtPath(doc: unknown, path: string[]): unknown[] {
  const out: unknown[] = [];
  collect(doc, path, 0, out);
  if (out.length === 0) out.push(undefined);
  return out;
}

function collect(value: unknown, path: string[], i: number, out: unknown[]): void {
  if (i === path.length) {
    if (!Array.isArray(value)) out.push(value);
    else if (value.length === 0) out.push(undefined);
    else for (const element of value) out.push(element);
    return;
  }
  if (Array.isArray(value)) {
    const part = path[i];
    if (/^\d+$/.test(part) && Number(part) < value.length) {
      collect(value[Number(part)], path, i + 1, out);
    }
    for (const element of value) if (isPlainObject(element)) collect(element, path, i, out);
    return;
  }
  if (isPlainObject(value)) {
    if (path[i] in value) collect(value[path[i]], path, i + 1, out);
    else out.push(undefined);
  }
}

/** Whether any array was met while reading the path (the index becomes multikey). */
export function pathTouchesArray(doc: unknown, path: string[], start = 0): boolean {
  if (Array.isArray(doc)) return true;
  if (start === path.length || !isPlainObject(doc)) return false;
  return pathTouchesArray(doc[path[start]], path, start + 1);
}

/** The value a sort on this path uses: the smallest element ascending, the largest descending. */
export function sortKeyAt(doc: Doc, path: string[], direction: number): unknown {
  const values = valuesAtPath(doc, path);
  let best = values[0] ?? null;
  for (let i = 1; i < values.length; i++) {
    const value = values[i] ?? null;
    const c = compareValues(value, best);
    if ((direction > 0 && c < 0) || (direction < 0 && c > 0)) best = value;
  }
  return best;
}

export type SortSpec = Array<[string[], number]>;

export function parseSortSpec(sort: unknown): SortSpec {
  if (!isPlainObject(sort)) return [];
  return Object.entries(sort).map(([field, dir]) => {
    if (isPlainObject(dir)) {
      throw Object.assign(new Error(`unsupported sort specification for '${field}' ($meta)`), {
        unsupported: true,
      });
    }
    return [field.split("."), Number(dir) < 0 ? -1 : 1];
  });
}

/** Sorts documents in place by a MongoDB sort specification; stable for equal keys. */
/** `tick` is called once per document and per comparison (a time limit's check). */
export function sortDocuments(docs: Doc[], spec: SortSpec, tick: () => void = noop): Doc[] {
  if (spec.length === 0) return docs;
  const keyed = docs.map((doc, index) => {
    tick();
    return { doc, index, keys: spec.map(([path, dir]) => sortKeyAt(doc, path, dir)) };
  });
  keyed.sort((x, y) => {
    tick();
    for (let i = 0; i < spec.length; i++) {
      const c = compareValues(x.keys[i], y.keys[i]);
      if (c !== 0) return c * spec[i][1];
    }
    return x.index - y.index;
  });
  for (let i = 0; i < keyed.length; i++) docs[i] = keyed[i].doc;
  return docs;
}

/**
 * The first `k` documents in sort order, without sorting everything (bounded insertion);
 * stable for equal keys, like sortDocuments.
 */
export function topSortedDocuments(
  docs: Doc[],
  spec: SortSpec,
  k: number,
  tick: () => void = noop,
): Doc[] {
  const best: Array<{ doc: Doc; keys: unknown[] }> = [];
  const compare = (a: unknown[], b: unknown[]): number => {
    for (let i = 0; i < spec.length; i++) {
      const c = compareValues(a[i], b[i]);
      if (c !== 0) return c * spec[i][1];
    }
    return 0;
  };
  for (const doc of docs) {
    tick();
    const keys = spec.map(([path, dir]) => sortKeyAt(doc, path, dir));
    if (best.length === k && compare(keys, best[k - 1].keys) >= 0) continue;
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(best[mid].keys, keys) <= 0) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, { doc, keys });
    if (best.length > k) best.pop();
  }
  return best.map((entry) => entry.doc);
}

function noop(): void {}
