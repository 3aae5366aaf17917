import { guardStore, type InsertOutcome, insertUnique } from "@movement-detection/shared/store";
import type { Collection, Db } from "mongodb";

export interface ProjectRecord {
  _id: string;
  organization_id: string;
  name: string;
  slug: string;
  created_at: Date;
  archived_at?: Date;
}

export function createProjectsStore(db: Db) {
  const collection: Collection<ProjectRecord> = db.collection("projects");
  return guardStore("projects", {
    async createIndexes(): Promise<void> {
      await collection.createIndex(
        { organization_id: 1, slug: 1 },
        { unique: true, name: "organization_slug_unique" },
      );
    },
    /** `duplicate` when the slug is taken in the organization. */
    insert(record: ProjectRecord): Promise<InsertOutcome> {
      return insertUnique(() => collection.insertOne(record));
    },
    find(id: string): Promise<ProjectRecord | null> {
      return collection.findOne({ _id: id });
    },
    async slugTaken(organizationId: string, slug: string): Promise<boolean> {
      return (await collection.findOne({ organization_id: organizationId, slug })) !== null;
    },
    list(organizationId: string | undefined): Promise<ProjectRecord[]> {
      const filter = organizationId ? { organization_id: organizationId } : {};
      return collection.find(filter).sort({ _id: 1 }).toArray();
    },
    /** Sets archived_at once (archiving twice keeps the first time). */
    async archive(id: string, at: Date): Promise<ProjectRecord | null> {
      await collection.updateOne(
        { _id: id, archived_at: { $exists: false } },
        { $set: { archived_at: at } },
      );
      return collection.findOne({ _id: id });
    },
  });
}

export type ProjectsStore = ReturnType<typeof createProjectsStore>;
