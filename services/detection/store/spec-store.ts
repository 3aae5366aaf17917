import { guardStore, insertUnique } from "@movement-detection/shared/store";
import type { Collection, Db } from "mongodb";

/** The immutable MoveSpec version a session runs, copied at admission. */
export interface SpecDocument {
  /** movespec_version_id */
  _id: string;
  movespec_id: string;
  yaml_source: string;
  content_hash: string;
}

/**
 * Versions are immutable, so each is copied once (collection `session_specs`) at admission:
 * any replica, and the sweeper, can then load a session's engine without calling authoring.
 */
export interface SpecStore {
  save(spec: SpecDocument): Promise<void>;
  find(versionId: string): Promise<SpecDocument | null>;
}

/** Versions this process saved (or found saved) recently: it does not write them again. */
const REMEMBERED_VERSIONS = 10_000;

export function createSpecStore(db: Db): SpecStore {
  const specs: Collection<SpecDocument> = db.collection<SpecDocument>("session_specs");
  // Every session creation saves its version, mostly one already there: the insert and its
  // duplicate-key answer were a store round trip (and an error built) per creation for nothing.
  const saved = new Set<string>();
  return guardStore("specs", {
    async save(spec) {
      if (saved.has(spec._id)) return;
      // Versions are immutable: a copy already there is the same copy.
      await insertUnique(() => specs.insertOne(spec));
      if (saved.size >= REMEMBERED_VERSIONS) saved.delete(saved.values().next().value as string);
      saved.add(spec._id);
    },
    find(versionId) {
      return specs.findOne({ _id: versionId });
    },
  });
}
