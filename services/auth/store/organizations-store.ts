import { guardStore } from "@movement-detection/shared/store";
import type { Collection, Db } from "mongodb";

export interface OrganizationRecord {
  _id: string;
  name: string;
  created_at: Date;
}

export function createOrganizationsStore(db: Db) {
  const collection: Collection<OrganizationRecord> = db.collection("organizations");
  return guardStore("organizations", {
    async insert(record: OrganizationRecord): Promise<void> {
      await collection.insertOne(record);
    },
    find(id: string): Promise<OrganizationRecord | null> {
      return collection.findOne({ _id: id });
    },
    list(): Promise<OrganizationRecord[]> {
      return collection.find({}).sort({ _id: 1 }).toArray();
    },
    async isEmpty(): Promise<boolean> {
      return (await collection.findOne({})) === null;
    },
  });
}

export type OrganizationsStore = ReturnType<typeof createOrganizationsStore>;
