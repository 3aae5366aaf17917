import type { Collection, Db } from "mongodb";
import { isDuplicateKey } from "./mongo-errors.js";

interface SettingRecord {
  _id: string;
  value: string;
  created_at: Date;
}

/** Values the embedded default generates once and keeps (e.g. the development pepper). */
export function createSettingsStore(db: Db) {
  const collection: Collection<SettingRecord> = db.collection("settings");
  return {
    /** The stored value, or `make()`'s, stored first; concurrent replicas agree on one value. */
    async getOrCreate(id: string, make: () => string): Promise<string> {
      const existing = await collection.findOne({ _id: id });
      if (existing) return existing.value;
      try {
        await collection.insertOne({ _id: id, value: make(), created_at: new Date() });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      const stored = await collection.findOne({ _id: id });
      if (!stored) throw new Error(`setting ${id} vanished`);
      return stored.value;
    },
  };
}

export type SettingsStore = ReturnType<typeof createSettingsStore>;
