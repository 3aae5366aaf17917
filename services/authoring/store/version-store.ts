import { guardStore, isDuplicateKey } from "@movement-detection/shared/store";
import type { ClientSession, Collection, Db } from "mongodb";
import type { MoveSpecDoc, VersionDoc } from "./documents.js";

/** `refused`: the MoveSpec is archived or gone (read it to say which). */
export type VersionAppendOutcome =
  | { kind: "inserted"; doc: VersionDoc }
  | { kind: "id_exists" | "number_taken" | "refused" };

/** Immutable versions, unique by (movespec_id, version_number). */
export interface VersionStore {
  ensureIndexes(): Promise<void>;
  /**
   * Stores the next version of a MoveSpec (numbered after its newest) only if the MoveSpec is not
   * archived, in one transaction that also writes `last_version_number` on the MoveSpec.
   */
  append(version: Omit<VersionDoc, "version_number">): Promise<VersionAppendOutcome>;
  /**
   * Versions found are kept per replica (at most `cachedVersions`, least recently used out
   * first): a version never changes and is never deleted, so a kept one never goes stale. A miss
   * is not kept (another replica may append it next). Callers must not modify what it returns.
   */
  findById(id: string): Promise<VersionDoc | null>;
  /** Newest first. */
  list(movespecId: string, limit: number, offset: number): Promise<VersionDoc[]>;
  count(movespecId: string): Promise<number>;
  /** The numbers of the given versions (unknown ids are left out). */
  numbersOf(ids: readonly string[]): Promise<Map<string, number>>;
}

export function createVersionStore(db: Db, cachedVersions = 256): VersionStore {
  const collection: Collection<VersionDoc> = db.collection<VersionDoc>("versions");
  const movespecs = db.collection<MoveSpecDoc>("movespecs");
  // Every session creation resolves its version: one store round trip fewer each time.
  const found = new Map<string, VersionDoc>();

  function keep(version: VersionDoc) {
    found.delete(version._id);
    found.set(version._id, version);
    if (found.size > cachedVersions) {
      const oldest = found.keys().next().value;
      if (oldest !== undefined) found.delete(oldest);
    }
    return version;
  }

  /** The highest version number of a MoveSpec, 0 when it has none. */
  async function latestNumber(movespecId: string, session?: ClientSession) {
    const [latest] = await collection
      .find({ movespec_id: movespecId }, { projection: { version_number: 1 }, session })
      .sort({ version_number: -1 })
      .limit(1)
      .toArray();
    return latest?.version_number ?? 0;
  }

  return guardStore("versions", {
    async ensureIndexes() {
      await collection.createIndex(
        { movespec_id: 1, version_number: -1 },
        { unique: true, name: "movespec_number" },
      );
    },

    async findById(id) {
      const kept = found.get(id);
      if (kept) return keep(kept);
      const version = await collection.findOne({ _id: id });
      return version ? keep(version) : null;
    },

    // The check that the MoveSpec is not archived and the insert must be one atomic write, or an
    // archive answering in between is followed by a new version. Writing the MoveSpec document in
    // the transaction is what makes it atomic: an archive (or another replica's append) that
    // commits after the transaction's snapshot makes this write a WriteConflict, retried from a
    // new snapshot; one that comes later waits for the commit. The number is read in the same
    // snapshot, so documents from before `last_version_number` existed need no migration.
    async append(version) {
      try {
        return await db.client.withSession((session) =>
          session.withTransaction(async (): Promise<VersionAppendOutcome> => {
            const doc = {
              ...version,
              version_number: (await latestNumber(version.movespec_id, session)) + 1,
            };
            const claimed = await movespecs.updateOne(
              { _id: version.movespec_id, archived_at: { $exists: false } },
              { $set: { last_version_number: doc.version_number } },
              { session },
            );
            if (claimed.matchedCount === 0) return { kind: "refused" };
            await collection.insertOne(doc, { session });
            return { kind: "inserted", doc };
          }),
        );
      } catch (error) {
        // A duplicate key aborted the transaction: nothing of it was applied. Which unique key?
        // Ask the data, not the error text (servers word it differently).
        if (!isDuplicateKey(error)) throw error;
        const sameId = await collection.findOne({ _id: version._id }, { projection: { _id: 1 } });
        return { kind: sameId ? "id_exists" : "number_taken" };
      }
    },

    list: (movespecId, limit, offset) =>
      collection
        .find({ movespec_id: movespecId })
        .sort({ version_number: -1 })
        .skip(offset)
        .limit(limit)
        .toArray(),

    count: (movespecId) => collection.countDocuments({ movespec_id: movespecId }),

    async numbersOf(ids) {
      if (ids.length === 0) return new Map();
      const found = await collection
        .find({ _id: { $in: [...ids] } }, { projection: { version_number: 1 } })
        .toArray();
      return new Map(found.map((version) => [version._id, version.version_number]));
    },
  });
}
