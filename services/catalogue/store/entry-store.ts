import { guardStore, insertUnique } from "@movement-detection/shared/store";
import type { Db } from "mongodb";
import { LISTING_INDEXES, type ListingQuery } from "../domain/listing-query.js";
import type { EntryDoc } from "./entry-document.js";

export interface UpsertOutcome {
  readonly applied: boolean;
  readonly storedRevision: number;
  /** When applied: what the entry was before (undefined when it is new). */
  readonly previous?: Pick<EntryDoc, "listed" | "keywords">;
}

/** Catalogue entries. */
export interface EntryStore {
  ensureIndexes(): Promise<void>;
  /**
   * Stores the snapshot unless the entry already has this revision or a newer one; the same
   * revision with the same text is stored again when its words or name key, as this code splits
   * them, differ.
   */
  upsertIfNewer(entry: Omit<EntryDoc, "star_count">): Promise<UpsertOutcome>;
  find(id: string): Promise<EntryDoc | null>;
  list(query: ListingQuery, limit: number, offset: number): Promise<EntryDoc[]>;
  count(query: ListingQuery): Promise<number>;
  addStars(id: string, delta: number): Promise<EntryDoc | null>;
  starCounts(ids: readonly string[]): Promise<Map<string, number>>;
}

export function createEntryStore(db: Db): EntryStore {
  const collection = db.collection<EntryDoc>("entries");

  return guardStore("catalogue_entries", {
    async ensureIndexes() {
      for (const index of LISTING_INDEXES) {
        await collection.createIndex(index.key, { name: index.name });
      }
    },

    async upsertIfNewer(entry) {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const { _id, ...fields } = entry;
        const unset: Record<string, ""> = {};
        for (const optional of [
          "description",
          "archived_at",
          "current_released_version_id",
        ] as const) {
          if (fields[optional] === undefined) {
            delete fields[optional];
            unset[optional] = "";
          }
        }
        const previous = await collection.findOneAndUpdate(
          {
            _id,
            $or: [
              { revision: { $lt: entry.revision } },
              // A resync re-pushes unchanged revisions: how else old entries get new keywords.
              // The same text split otherwise is decided on the words themselves, not on the
              // stored version: an old replica's write during a rolling deploy keeps the newer
              // version with older words, and a new ICU (Node) may split the same text
              // differently at the same version. Another text at the same revision is ignored.
              {
                revision: entry.revision,
                name: entry.name,
                // null matches a description left out and one stored as null (a first insert).
                description: entry.description ?? (null as unknown as undefined),
                $or: [{ keywords: { $ne: entry.keywords } }, { name_key: { $ne: entry.name_key } }],
              },
            ],
          },
          Object.keys(unset).length > 0 ? { $set: fields, $unset: unset } : { $set: fields },
          { returnDocument: "before", projection: { listed: 1, keywords: 1 } },
        );
        if (previous) return { applied: true, storedRevision: entry.revision, previous };
        const existing = await collection.findOne({ _id }, { projection: { revision: 1 } });
        if (existing) return { applied: false, storedRevision: existing.revision };
        const inserted = await insertUnique(() =>
          collection.insertOne({ ...entry, star_count: 0 }),
        );
        if (inserted === "inserted") return { applied: true, storedRevision: entry.revision };
        // Someone inserted it between our two steps: compare revisions again.
      }
      throw new Error(`entry ${entry._id} kept changing during upsert`);
    },

    find: (id) => collection.findOne({ _id: id }),

    list: (query, limit, offset) =>
      collection
        .find(query.filter, { projection: { keywords: 0 } })
        .sort(query.sort)
        .skip(offset)
        .limit(limit)
        .toArray(),

    count: (query) => collection.countDocuments(query.filter),

    addStars: (id, delta) =>
      collection.findOneAndUpdate(
        { _id: id },
        { $inc: { star_count: delta } },
        { returnDocument: "after", projection: { keywords: 0 } },
      ),

    async starCounts(ids) {
      const found = await collection
        .find({ _id: { $in: [...ids] } }, { projection: { star_count: 1 } })
        .toArray();
      return new Map(found.map((entry) => [entry._id, entry.star_count]));
    },
  });
}
