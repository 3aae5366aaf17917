/**
 * A collection's committed state: documents by canonical `_id` key plus its indexes. Every
 * mutation checks all unique indexes before touching anything, so a write either applies
 * to the document and every index, or not at all.
 */
import { type Binary, UUID } from "bson";
import { compareValues, type Doc, idKeyOf } from "../bson-values.js";
import { badValue, MongoCommandError } from "../errors.js";
import {
  CollectionIndex,
  duplicateKeyError,
  type IndexSpec,
  sameIndexOptions,
  sameKeyPattern,
} from "./collection-index.js";

export interface DocRecord {
  doc: Doc;
  /** Commit sequence number of the write that produced this version. */
  version: number;
}

/** A replaced version of a document: `doc` (null: absent) was current from `version` until `until`. */
export interface HistoryEntry {
  doc: Doc | null;
  version: number;
  until: number;
}

export const ID_INDEX_SPEC: IndexSpec = { v: 2, key: { _id: 1 }, name: "_id_" };

export class Collection {
  readonly docs = new Map<string, DocRecord>();
  /** Prior versions of documents, kept while transactions may need them (snapshot reads). */
  readonly history = new Map<string, HistoryEntry[]>();
  readonly indexes = new Map<string, CollectionIndex>();
  readonly uuid: Binary;

  constructor(
    readonly db: string,
    readonly name: string,
    readonly options: Doc = {},
    uuid?: Binary,
  ) {
    this.uuid = uuid ?? new UUID().toBinary();
    this.indexes.set("_id_", new CollectionIndex(ID_INDEX_SPEC));
  }

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  get(idKey: string): Doc | undefined {
    return this.docs.get(idKey)?.doc;
  }

  /** Throws DuplicateKey if `doc` would collide with another document on a unique index. */
  checkUnique(doc: Doc, idKey: string, ignore?: (otherId: string) => boolean): void {
    for (const index of this.indexes.values()) {
      if (!index.spec.unique || index.name === "_id_") continue;
      const keys = index.keysFor(doc);
      const other = index.findConflict(keys, idKey, ignore);
      if (other !== undefined) {
        const otherDoc = this.get(other);
        const clash = keys.find(
          (k) => otherDoc && index.keysFor(otherDoc).some((o) => sameKey(o, k)),
        );
        throw duplicateKeyError(this.ns, index, clash ?? keys[0]);
      }
    }
  }

  /**
   * Throws DuplicateKey unless the collection stays unique once every document of `finals`
   * (id key -> its new version, null: deleted) replaces its current version at once: against the
   * documents `finals` leaves as they are, and among the new versions themselves. A transaction's
   * commit checks its write set with this, then applies it without checking each document against
   * a state half way through (swapping two unique keys collides with itself one at a time).
   */
  checkUniqueTogether(finals: ReadonlyMap<string, Doc | null>): void {
    for (const [idKey, doc] of finals) {
      if (doc) this.checkUnique(doc, idKey, (other) => finals.has(other));
    }
    for (const index of this.indexes.values()) {
      if (!index.spec.unique || index.name === "_id_") continue;
      // Sorted by key, equal keys are neighbours: n log n for a large write set.
      const entries: Array<{ key: unknown[]; idKey: string }> = [];
      for (const [idKey, doc] of finals) {
        if (doc) for (const key of index.keysFor(doc)) entries.push({ key, idKey });
      }
      entries.sort((a, b) => compareKeys(a.key, b.key));
      for (let i = 1; i < entries.length; i++) {
        const [a, b] = [entries[i - 1], entries[i]];
        if (a.idKey !== b.idKey && sameKey(a.key, b.key)) {
          throw duplicateKeyError(this.ns, index, b.key);
        }
      }
    }
  }

  /** `checked: false` only for a write set checkUniqueTogether passed (a commit's). */
  insert(doc: Doc, version: number, checked = true): void {
    const idKey = idKeyOf(doc._id);
    if (this.docs.has(idKey)) throw duplicateKeyError(this.ns, this.idIndex, [doc._id]);
    const keys = this.keysByIndex(doc);
    if (checked) this.checkUnique(doc, idKey);
    this.docs.set(idKey, { doc, version });
    for (const [index, k] of keys) {
      index.add(k, idKey);
      index.noteMultikey(doc);
    }
  }

  replace(idKey: string, doc: Doc, version: number, checked = true): void {
    const record = this.docs.get(idKey);
    if (!record) throw new MongoCommandError("InternalError", `no document ${idKey} to replace`);
    const newKeys = this.keysByIndex(doc);
    if (checked) this.checkUnique(doc, idKey);
    for (const [index, k] of newKeys) {
      const old = index.keysFor(record.doc);
      if (sameKeySets(old, k)) continue;
      index.remove(old, idKey);
      index.add(k, idKey);
      index.noteMultikey(doc);
    }
    record.doc = doc;
    record.version = version;
  }

  remove(idKey: string): Doc | undefined {
    const record = this.docs.get(idKey);
    if (!record) return undefined;
    for (const index of this.indexes.values()) index.remove(index.keysFor(record.doc), idKey);
    this.docs.delete(idKey);
    return record.doc;
  }

  remember(idKey: string, doc: Doc | null, version: number, until: number): void {
    const entries = this.history.get(idKey);
    if (entries) entries.push({ doc, version, until });
    else this.history.set(idKey, [{ doc, version, until }]);
  }

  /**
   * The document as of commit sequence `snapshot`: undefined if it did not exist then.
   * Only valid when history was kept since `snapshot` (an open transaction guarantees it).
   */
  versionAt(idKey: string, snapshot: number): Doc | undefined {
    const record = this.docs.get(idKey);
    if (record && record.version <= snapshot) return record.doc;
    const entries = this.history.get(idKey);
    if (!entries) return record && record.version <= snapshot ? record.doc : undefined;
    for (const entry of entries) {
      if (entry.version <= snapshot && snapshot < entry.until) return entry.doc ?? undefined;
    }
    return undefined;
  }

  pruneHistory(floor: number | undefined): void {
    if (this.history.size === 0) return;
    if (floor === undefined) {
      this.history.clear();
      return;
    }
    for (const [idKey, entries] of this.history) {
      const kept = entries.filter((e) => e.until > floor);
      if (kept.length === 0) this.history.delete(idKey);
      else if (kept.length !== entries.length) this.history.set(idKey, kept);
    }
  }

  get idIndex(): CollectionIndex {
    return this.indexes.get("_id_")!;
  }

  private keysByIndex(doc: Doc): Array<[CollectionIndex, unknown[][]]> {
    const out: Array<[CollectionIndex, unknown[][]]> = [];
    for (const index of this.indexes.values()) out.push([index, index.keysFor(doc)]);
    return out;
  }

  /** Returns false when an identical index already exists. */
  createIndex(spec: IndexSpec): boolean {
    for (const existing of this.indexes.values()) {
      const samePattern = sameKeyPattern(existing.spec, spec);
      if (existing.name === spec.name) {
        if (samePattern && sameIndexOptions(existing.spec, spec)) return false;
        if (samePattern) {
          throw new MongoCommandError(
            "IndexOptionsConflict",
            `An existing index has the same name as the requested index but different options. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(existing.spec)}`,
          );
        }
        throw new MongoCommandError(
          "IndexKeySpecsConflict",
          `An existing index has the same name as the requested index but a different key pattern. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(existing.spec)}`,
        );
      }
      if (samePattern) {
        if (sameIndexOptions(existing.spec, spec)) {
          throw new MongoCommandError(
            "IndexOptionsConflict",
            `Index already exists with a different name: ${existing.name}`,
          );
        }
        throw new MongoCommandError(
          "IndexOptionsConflict",
          `An equivalent index already exists with a different name and options: ${existing.name}`,
        );
      }
    }
    if (spec.name === "_id_" || Object.keys(spec.key).join() === "_id") {
      if (spec.unique === false) throw badValue("The _id index cannot be non-unique");
    }
    const index = new CollectionIndex(spec);
    const duplicate = index.rebuild(this.documents());
    if (duplicate) throw duplicateKeyError(this.ns, index, duplicate.key);
    this.indexes.set(spec.name, index);
    return true;
  }

  *documents(): Generator<[string, Doc]> {
    for (const [idKey, record] of this.docs) yield [idKey, record.doc];
  }

  /**
   * Loads documents in bulk (snapshot recovery), batch by batch, leaving the indexes stale
   * until `finishLoading()`: one sort per index at the end instead of an insert per document.
   */
  loadDocuments(docs: readonly Doc[], version: () => number): void {
    for (const doc of docs) {
      const idKey = idKeyOf(doc._id);
      if (this.docs.has(idKey)) throw duplicateKeyError(this.ns, this.idIndex, [doc._id]);
      this.docs.set(idKey, { doc, version: version() });
    }
  }

  /** Builds every index over the documents loaded with `loadDocuments`. */
  finishLoading(): void {
    for (const index of this.indexes.values()) {
      const duplicate = index.rebuild(this.documents());
      if (duplicate) throw duplicateKeyError(this.ns, index, duplicate.key);
    }
  }

  dropIndex(name: string): void {
    if (name === "_id_") throw new MongoCommandError("InvalidOptions", "cannot drop _id index");
    if (!this.indexes.delete(name)) {
      throw new MongoCommandError("IndexNotFound", `index not found with name [${name}]`);
    }
  }

  secondaryIndexes(): CollectionIndex[] {
    return [...this.indexes.values()].filter((i) => i.name !== "_id_");
  }
}

function sameKey(a: unknown[], b: unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => compareValues(v, b[i]) === 0);
}

function sameKeySets(a: unknown[][], b: unknown[][]): boolean {
  return a.length === b.length && a.every((k, i) => sameKey(k, b[i]));
}

function compareKeys(a: unknown[], b: unknown[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}
