/**
 * How a command reads and writes documents. Outside a transaction writes go straight to
 * the storage engine (waiting for documents a transaction has locked); inside one they go
 * to the transaction's write set, with write-conflict and unique checks done eagerly.
 */
import { type Doc, idKeyOf } from "../bson-values.js";
import { writeConflict } from "../errors.js";
import type { DocSource } from "../query/find-executor.js";
import type { Collection } from "../storage/collection.js";
import { duplicateKeyError } from "../storage/collection-index.js";
import { checkDocumentSize, encodeCheckedDocument } from "../storage/document-size.js";
import type { StorageEngine } from "../storage/storage-engine.js";
import { type LockTable, lockKey } from "./lock-table.js";
import type { Transaction } from "./transaction.js";

export interface DataAccess {
  readonly txn: Transaction | undefined;
  source(db: string, name: string): DocSource;
  get(collection: Collection, idKey: string): Doc | undefined;
  /** Throws a LockWait when a transaction holds one of these documents. */
  checkWritable(collection: Collection, idKeys: Iterable<string>): void;
  insert(collection: Collection, doc: Doc): void;
  replace(collection: Collection, idKey: string, doc: Doc): void;
  remove(collection: Collection, idKey: string): void;
}

export function directAccess(engine: StorageEngine, locks: LockTable): DataAccess {
  return {
    txn: undefined,
    source: (db, name) => ({ collection: engine.getCollection(db, name) }),
    get: (collection, idKey) => collection.get(idKey),
    checkWritable(collection, idKeys) {
      if (locks.size === 0) return;
      for (const idKey of idKeys) {
        const owner = locks.ownerOf(lockKey(collection.ns, idKey));
        if (owner) throw locks.waitFor(owner);
      }
    },
    insert: (collection, doc) => {
      engine.insertDoc(collection, doc, true, encodeCheckedDocument(doc, "insert"));
    },
    replace: (collection, idKey, doc) => {
      engine.replaceDoc(collection, idKey, doc, true, encodeCheckedDocument(doc, "update"));
    },
    remove: (collection, idKey) => {
      engine.deleteDoc(collection, idKey);
    },
  };
}

export function transactionAccess(
  engine: StorageEngine,
  locks: LockTable,
  txn: Transaction,
): DataAccess {
  const lockFor = (collection: Collection, idKey: string): void => {
    const key = lockKey(collection.ns, idKey);
    const owner = locks.ownerOf(key);
    if (owner && owner !== txn) {
      throw writeConflict("Write conflict during plan execution and yielding is disabled.");
    }
    const committed = collection.docs.get(idKey);
    if (!owner && committed && committed.version > txn.snapshotSeq) {
      throw writeConflict(
        "Write conflict: the document was modified after this transaction started.",
      );
    }
    locks.acquire(key, txn);
  };

  const checkUniqueInTxn = (collection: Collection, doc: Doc, idKey: string): void => {
    const overlay = txn.overlay(collection.ns);
    collection.checkUnique(doc, idKey, (other) => overlay?.has(other) ?? false);
    if (!overlay) return;
    for (const index of collection.indexes.values()) {
      if (!index.spec.unique || index.name === "_id_") continue;
      const keys = index.keysFor(doc);
      for (const [otherId, other] of overlay) {
        if (otherId === idKey || other === null) continue;
        for (const k of index.keysFor(other)) {
          if (keys.some((mine) => sameKey(mine, k)))
            throw duplicateKeyError(collection.ns, index, k);
        }
      }
    }
  };

  const visible = (collection: Collection, idKey: string): Doc | undefined => {
    const overlay = txn.overlay(collection.ns);
    if (overlay?.has(idKey)) return overlay.get(idKey) ?? undefined;
    return collection.versionAt(idKey, txn.snapshotSeq);
  };

  return {
    txn,
    source: (db, name) => ({
      collection: engine.getCollection(db, name),
      overlay: txn.overlay(`${db}.${name}`),
      snapshot: txn.snapshotSeq,
    }),
    get: visible,
    checkWritable() {},
    insert(collection, doc) {
      checkDocumentSize(doc, "insert");
      const idKey = idKeyOf(doc._id);
      if (visible(collection, idKey)) {
        throw duplicateKeyError(collection.ns, collection.idIndex, [doc._id]);
      }
      for (const index of collection.indexes.values()) index.keysFor(doc);
      checkUniqueInTxn(collection, doc, idKey);
      lockFor(collection, idKey);
      txn.overlayFor(collection.ns).set(idKey, doc);
    },
    replace(collection, idKey, doc) {
      checkDocumentSize(doc, "update");
      for (const index of collection.indexes.values()) index.keysFor(doc);
      checkUniqueInTxn(collection, doc, idKey);
      lockFor(collection, idKey);
      txn.overlayFor(collection.ns).set(idKey, doc);
    },
    remove(collection, idKey) {
      lockFor(collection, idKey);
      txn.overlayFor(collection.ns).set(idKey, null);
    },
  };
}

function sameKey(a: unknown[], b: unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => idKeyOf(v) === idKeyOf(b[i]));
}
