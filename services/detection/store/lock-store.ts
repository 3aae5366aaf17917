import { guardStore, insertUnique } from "@movement-detection/shared/store";
import type { Collection, Db } from "mongodb";

interface LockDocument {
  _id: string;
  owner: string;
  expires_at: Date;
}

/** Named, expiring locks (collection `locks`): one replica at a time runs the sweeper. */
export interface LockStore {
  ensureIndexes(): Promise<void>;
  /** Takes or renews `name` for `owner` until now + ttl; false if another owner holds it. */
  tryAcquire(name: string, owner: string, ttlMs: number): Promise<boolean>;
  release(name: string, owner: string): Promise<void>;
}

export function createLockStore(db: Db): LockStore {
  const locks: Collection<LockDocument> = db.collection<LockDocument>("locks");
  return guardStore("locks", {
    async ensureIndexes() {
      // A lock nobody renewed for an hour is long free (an expired one is taken over anyway):
      // names no longer used go away instead of staying for ever.
      await locks.createIndex({ expires_at: 1 }, { expireAfterSeconds: 3600, name: "expired" });
    },

    async tryAcquire(name, owner, ttlMs) {
      const now = new Date();
      const expires = new Date(now.getTime() + ttlMs);
      // Renew or take over an expired lock; else create it (no upsert with $or: simpler for any
      // MongoDB-compatible server to get right).
      const taken = await locks.updateOne(
        { _id: name, $or: [{ owner }, { expires_at: { $lte: now } }] },
        { $set: { owner, expires_at: expires } },
      );
      if (taken.matchedCount === 1) return true;
      const created = await insertUnique(() =>
        locks.insertOne({ _id: name, owner, expires_at: expires }),
      );
      return created === "inserted";
    },
    async release(name, owner) {
      await locks.deleteOne({ _id: name, owner });
    },
  });
}
