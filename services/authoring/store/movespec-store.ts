import { guardStore, insertUnique } from "@movement-detection/shared/store";
import type { AnyBulkWriteOperation, Collection, Db, Filter, UpdateFilter } from "mongodb";
import type { SearchFields } from "../domain/search-fields.js";
import { type DraftDoc, METADATA_PROJECTION, type MoveSpecDoc } from "./documents.js";

export type NameSkeletonFields = Required<
  Pick<MoveSpecDoc, "name_skeleton" | "name_skeleton_version">
>;

/** Skeleton writes sent to the store at once by the backfill. */
const BACKFILL_BATCH = 500;

export type DraftReplaceOutcome =
  | { kind: "replaced"; doc: MoveSpecDoc }
  | { kind: "missing" | "archived" | "revision_mismatch"; doc?: MoveSpecDoc };

/** A page of a project's MoveSpecs: `words` must all be among a MoveSpec's search words. */
export interface ProjectListing {
  readonly projectId: string;
  readonly words: readonly string[];
  readonly sort: "recent" | "name";
  readonly limit: number;
  readonly offset: number;
}

/**
 * The sorts of a project's listing, each ending with `_id` so that the order is total (pages never
 * repeat or skip one), each served by an index that starts with project_id.
 */
export const PROJECT_SORTS = {
  recent: { "draft.updated_at": -1, _id: 1 },
  name: { name_key: 1, _id: 1 },
} as const satisfies Record<ProjectListing["sort"], Record<string, 1 | -1>>;

/** MoveSpec documents (metadata, draft, catalogue outbox flag). */
export interface MoveSpecStore {
  ensureIndexes(): Promise<void>;
  /** false when a MoveSpec with this id exists already (an idempotent retry). */
  insert(doc: MoveSpecDoc): Promise<boolean>;
  /** Metadata and draft revision, without the draft's YAML. */
  findMetadata(id: string): Promise<MoveSpecDoc | null>;
  findWithDraft(id: string): Promise<MoveSpecDoc | null>;
  replaceDraft(
    id: string,
    draft: Omit<DraftDoc, "draft_id" | "revision"> & { yamlSource: string },
    ifRevision: number | undefined,
  ): Promise<DraftReplaceOutcome>;
  /**
   * Applies a metadata change (`set`) to a MoveSpec matching `where`, bumping its revision and
   * flagging it for the catalogue in the same atomic update. Null when nothing matched.
   */
  updateMetadata(
    id: string,
    where: Record<string, unknown>,
    set: Partial<MoveSpecDoc>,
    unset?: readonly (keyof MoveSpecDoc)[],
  ): Promise<MoveSpecDoc | null>;
  /** The outbox: MoveSpecs whose latest revision the catalogue has not stored yet. */
  findCataloguePending(limit: number): Promise<MoveSpecDoc[]>;
  /** Clears the outbox flag if the MoveSpec is still at `revision` (else a newer one is pending). */
  markCatalogueSynced(id: string, revision: number): Promise<void>;
  /**
   * Archives (at `at`) every MoveSpec of the project that is not archived yet, bumping each one's
   * revision and flagging it for the catalogue; returns how many.
   */
  archiveAllOfProject(projectId: string, at: Date): Promise<number>;
  /** Flags one or every MoveSpec for pushing again; returns how many. */
  markAllCataloguePending(id?: string): Promise<number>;
  /**
   * A public, unarchived MoveSpec of another project than `projectId` whose name has `skeleton`
   * but is not `name` (the same characters are not a disguise), or null; null too when another
   * project publishes `name` itself. One or two index lookups.
   */
  findPublicLookalike(
    skeleton: string,
    projectId: string,
    name: string,
  ): Promise<Pick<MoveSpecDoc, "_id" | "name"> | null>;
  /**
   * Gives every public, unarchived MoveSpec whose skeleton was not made by `skeleton.version` (one
   * stored before the field, or under an older confusables table) the one `skeleton.of` makes
   * of its name; returns how many were changed. Neither revision nor catalogue flag: the
   * catalogue never sees the skeleton.
   */
  backfillNameSkeletons(skeleton: {
    of: (name: string) => string;
    version: string;
  }): Promise<number>;
  /** Stores the skeleton fields if the MoveSpec's name is still `name` (a rename sets its own). */
  setNameSkeleton(id: string, name: string, fields: NameSkeletonFields): Promise<void>;
  /** Stores the search fields if the MoveSpec's text is still `name` and `description`. */
  setSearchFields(
    id: string,
    text: { name: string; description?: string },
    fields: SearchFields,
  ): Promise<void>;
  /** One page of a project's MoveSpecs (metadata only) and how many match in all. */
  listProject(listing: ProjectListing): Promise<{ items: MoveSpecDoc[]; total: number }>;
  /**
   * Gives every MoveSpec whose search fields were not made by `version` (one stored before them,
   * or split another way) the ones `of` makes; returns how many were changed. Neither revision nor
   * catalogue flag: the catalogue keeps its own words.
   */
  backfillSearchFields(fields: {
    of: (name: string, description: string | undefined) => SearchFields;
    version: number;
  }): Promise<number>;
}

/** The MoveSpec `id` while its name and description are still these. */
function sameText(
  id: string,
  text: { name: string; description?: string | undefined },
): Record<string, unknown> {
  return {
    _id: id,
    name: text.name,
    description: text.description === undefined ? { $exists: false } : text.description,
  };
}

export function createMoveSpecStore(db: Db): MoveSpecStore {
  const collection = db.collection<MoveSpecDoc>("movespecs");
  const findMetadata = (id: string) =>
    collection.findOne({ _id: id }, { projection: METADATA_PROJECTION });

  return guardStore("movespecs", {
    async ensureIndexes() {
      await collection.createIndex({ catalogue_pending: 1 }, { name: "catalogue_pending" });
      await collection.createIndex({ project_id: 1, created_at: -1 }, { name: "project_created" });
      for (const [name, sort] of Object.entries(PROJECT_SORTS)) {
        await collection.createIndex({ project_id: 1, ...sort }, { name: `project_${name}` });
      }
      // Every lookalike lookup is one equality on the skeleton, then on visibility: the
      // MoveSpecs sharing a skeleton are few, public ones fewer.
      await collection.createIndex(
        { name_skeleton: 1, visibility: 1 },
        { name: "name_skeleton_visibility" },
      );
    },

    async insert(doc) {
      return (await insertUnique(() => collection.insertOne(doc))) === "inserted";
    },

    findMetadata,
    findWithDraft: (id) => collection.findOne({ _id: id }),

    async replaceDraft(id, draft, ifRevision) {
      const filter: Record<string, unknown> = { _id: id, archived_at: { $exists: false } };
      if (ifRevision !== undefined) filter["draft.revision"] = ifRevision;
      const updated = await collection.findOneAndUpdate(
        filter,
        {
          $set: {
            draft_yaml_source: draft.yamlSource,
            "draft.updated_at": draft.updated_at,
            "draft.updated_by": draft.updated_by,
          },
          $inc: { "draft.revision": 1 },
        },
        { returnDocument: "after" },
      );
      if (updated) return { kind: "replaced", doc: updated };
      const current = await findMetadata(id);
      if (!current) return { kind: "missing" };
      if (current.archived_at) return { kind: "archived", doc: current };
      return { kind: "revision_mismatch", doc: current };
    },

    async updateMetadata(id, where, set, unset = []) {
      const update: UpdateFilter<MoveSpecDoc> = {
        $set: { ...set, catalogue_pending: true },
        $inc: { revision: 1 },
      };
      if (unset.length > 0) {
        update.$unset = Object.fromEntries(unset.map((field) => [field, ""]));
      }
      return collection.findOneAndUpdate({ ...where, _id: id }, update, {
        returnDocument: "after",
        projection: METADATA_PROJECTION,
      });
    },

    findCataloguePending: (limit) =>
      collection
        .find({ catalogue_pending: true }, { projection: METADATA_PROJECTION })
        .limit(limit)
        .toArray(),

    async markCatalogueSynced(id, revision) {
      await collection.updateOne(
        { _id: id, revision, catalogue_pending: true },
        { $set: { catalogue_pending: false } },
      );
    },

    async archiveAllOfProject(projectId, at) {
      const result = await collection.updateMany(
        { project_id: projectId, archived_at: { $exists: false } },
        {
          $set: {
            archived_at: at,
            archived_with_project: true,
            updated_at: at,
            catalogue_pending: true,
          },
          $inc: { revision: 1 },
        },
      );
      return result.modifiedCount;
    },

    async findPublicLookalike(skeleton, projectId, name) {
      const others = {
        name_skeleton: skeleton,
        visibility: "public" as const,
        archived_at: { $exists: false },
        project_id: { $ne: projectId },
      };
      const projection = { projection: { _id: 1, name: 1 } };
      const lookalike = await collection.findOne({ ...others, name: { $ne: name } }, projection);
      if (!lookalike) return null;
      // Another project publishes these very characters: this name copies that one, which is
      // allowed, and can no more be refused because of a third look-alike than that one could.
      const same = await collection.findOne({ ...others, name }, projection);
      return same ? null : lookalike;
    },

    backfillNameSkeletons(skeleton) {
      return rewriteInBatches(
        collection,
        {
          visibility: "public",
          archived_at: { $exists: false },
          name_skeleton_version: { $ne: skeleton.version },
        },
        { _id: 1, name: 1 },
        // Only if the name is still the one read: a rename since then set its own skeleton.
        (doc) => ({
          filter: { _id: doc._id, name: doc.name },
          update: {
            $set: { name_skeleton: skeleton.of(doc.name), name_skeleton_version: skeleton.version },
          },
        }),
      );
    },

    async setNameSkeleton(id, name, fields) {
      await collection.updateOne({ _id: id, name }, { $set: fields });
    },

    async setSearchFields(id, text, fields) {
      await collection.updateOne(sameText(id, text), { $set: { ...fields } });
    },

    async listProject(listing) {
      const filter: Record<string, unknown> = { project_id: listing.projectId };
      if (listing.words.length > 0) filter.search_words = { $all: [...listing.words] };
      const [items, total] = await Promise.all([
        collection
          .find(filter, { projection: { ...METADATA_PROJECTION, search_words: 0 } })
          .sort(PROJECT_SORTS[listing.sort])
          .skip(listing.offset)
          .limit(listing.limit)
          .toArray(),
        collection.countDocuments(filter),
      ]);
      return { items, total };
    },

    backfillSearchFields(fields) {
      return rewriteInBatches(
        collection,
        { search_words_version: { $ne: fields.version } },
        { _id: 1, name: 1, description: 1 },
        // Only if the text is still the one read: an update since then set its own fields.
        (doc) => ({
          filter: sameText(doc._id, doc),
          update: { $set: { ...fields.of(doc.name, doc.description) } },
        }),
      );
    },

    async markAllCataloguePending(id) {
      const result = await collection.updateMany(id === undefined ? {} : { _id: id }, {
        $set: { catalogue_pending: true },
      });
      return result.matchedCount;
    },
  });
}

/**
 * Rewrites the documents `filter` selects, BACKFILL_BATCH at a time (a start-up backfill of
 * thousands of documents in a few round trips); answers how many changed.
 */
async function rewriteInBatches(
  collection: Collection<MoveSpecDoc>,
  filter: Filter<MoveSpecDoc>,
  projection: Record<string, 1>,
  rewrite: (doc: MoveSpecDoc) => { filter: Filter<MoveSpecDoc>; update: UpdateFilter<MoveSpecDoc> },
): Promise<number> {
  let changed = 0;
  let batch: AnyBulkWriteOperation<MoveSpecDoc>[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    changed += (await collection.bulkWrite(batch, { ordered: false })).modifiedCount;
    batch = [];
  };
  for await (const doc of collection.find(filter, { projection })) {
    batch.push({ updateOne: rewrite(doc as MoveSpecDoc) });
    if (batch.length >= BACKFILL_BATCH) await flush();
  }
  await flush();
  return changed;
}
