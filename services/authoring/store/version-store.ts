import type { Collection, Db } from "mongodb";
import { guardStore, insertUnique } from "../../shared/store/store-errors.js";
import type { VersionDoc } from "./documents.js";

export type VersionInsertOutcome = "inserted" | "id_exists" | "number_taken";

/** Immutable versions, unique by (movespec_id, version_number). */
export interface VersionStore {
  ensureIndexes(): Promise<void>;
  insert(doc: VersionDoc): Promise<VersionInsertOutcome>;
  findById(id: string): Promise<VersionDoc | null>;
  /** The highest version number of a MoveSpec, 0 when it has none. */
  latestNumber(movespecId: string): Promise<number>;
  /** Newest first. */
  list(movespecId: string, limit: number, offset: number): Promise<VersionDoc[]>;
  count(movespecId: string): Promise<number>;
}

export function createVersionStore(db: Db): VersionStore {
  const collection: Collection<VersionDoc> = db.collection<VersionDoc>("versions");
  return guardStore("versions", {
    async ensureIndexes() {
      await collection.createIndex(
        { movespec_id: 1, version_number: -1 },
        { unique: true, name: "movespec_number" },
      );
    },

    async insert(doc) {
      if ((await insertUnique(() => collection.insertOne(doc))) === "inserted") return "inserted";
      // Which unique key? Ask the data, not the error text (servers word it differently).
      const sameId = await collection.findOne({ _id: doc._id }, { projection: { _id: 1 } });
      return sameId ? "id_exists" : "number_taken";
    },

    findById: (id) => collection.findOne({ _id: id }),

    async latestNumber(movespecId) {
      const [latest] = await collection
        .find({ movespec_id: movespecId }, { projection: { version_number: 1 } })
        .sort({ version_number: -1 })
        .limit(1)
        .toArray();
      return latest?.version_number ?? 0;
    },

    list: (movespecId, limit, offset) =>
      collection
        .find({ movespec_id: movespecId })
        .sort({ version_number: -1 })
        .skip(offset)
        .limit(limit)
        .toArray(),

    count: (movespecId) => collection.countDocuments({ movespec_id: movespecId }),
  });
}
