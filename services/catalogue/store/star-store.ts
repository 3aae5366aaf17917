import { guardStore, insertUnique } from "@movement-detection/shared/store";
import type { Db } from "mongodb";
import type { StarDoc } from "./entry-document.js";

/** Organization-level stars: one document per (organization, MoveSpec). */
export interface StarStore {
  ensureIndexes(): Promise<void>;
  /** true when the organization had not starred it yet. */
  add(organizationId: string, movespecId: string, at: Date): Promise<boolean>;
  /** true when there was a star to remove. */
  remove(organizationId: string, movespecId: string): Promise<boolean>;
  has(organizationId: string, movespecId: string): Promise<boolean>;
}

export function createStarStore(db: Db): StarStore {
  const collection = db.collection<StarDoc>("stars");
  const idOf = (organizationId: string, movespecId: string) => `${organizationId}:${movespecId}`;
  return guardStore("stars", {
    async ensureIndexes() {
      await collection.createIndex({ movespec_id: 1 }, { name: "movespec" });
    },
    async add(organizationId, movespecId, at) {
      const outcome = await insertUnique(() =>
        collection.insertOne({
          _id: idOf(organizationId, movespecId),
          organization_id: organizationId,
          movespec_id: movespecId,
          created_at: at,
        }),
      );
      return outcome === "inserted";
    },
    async remove(organizationId, movespecId) {
      const result = await collection.deleteOne({ _id: idOf(organizationId, movespecId) });
      return result.deletedCount === 1;
    },
    async has(organizationId, movespecId) {
      return (
        (await collection.countDocuments({ _id: idOf(organizationId, movespecId) }, { limit: 1 })) >
        0
      );
    },
  });
}
