import { guardStore } from "@movement-detection/shared/store";
import type { Collection, Db } from "mongodb";

interface SettingRecord {
  _id: string;
  value: string;
  created_at: Date;
}

/**
 * Settings of the auth database. Only one is left, and only to be removed: the development
 * pepper that older versions generated and kept here (the pepper now comes from configuration).
 */
export function createSettingsStore(db: Db) {
  const collection: Collection<SettingRecord> = db.collection("settings");
  return guardStore("settings", {
    /** Deletes a setting; true if there was one. */
    async remove(id: string): Promise<boolean> {
      return (await collection.deleteOne({ _id: id })).deletedCount > 0;
    },
  });
}

export type SettingsStore = ReturnType<typeof createSettingsStore>;
