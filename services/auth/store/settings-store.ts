import type { Collection, Db } from "mongodb";
import { guardStore, insertUnique } from "../../shared/store/store-errors.js";

interface SettingRecord {
  _id: string;
  value: string;
  created_at: Date;
}

/** Values the embedded default generates once and keeps (e.g. the development pepper). */
export function createSettingsStore(db: Db) {
  const collection: Collection<SettingRecord> = db.collection("settings");
  return guardStore("settings", {
    /** The stored value, or `make()`'s, stored first; concurrent replicas agree on one value. */
    async getOrCreate(id: string, make: () => string): Promise<string> {
      const existing = await collection.findOne({ _id: id });
      if (existing) return existing.value;
      // A duplicate means a concurrent replica stored its value first: read that one.
      await insertUnique(() =>
        collection.insertOne({ _id: id, value: make(), created_at: new Date() }),
      );
      const stored = await collection.findOne({ _id: id });
      if (!stored) throw new Error(`setting ${id} vanished`);
      return stored.value;
    },
  });
}

export type SettingsStore = ReturnType<typeof createSettingsStore>;
