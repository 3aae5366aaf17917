import type { VisibilityName } from "../domain/access.js";

/**
 * A MoveSpec as stored: its metadata, its single draft (embedded, so that writes can be checked
 * against the archive flag and the draft revision atomically) and its catalogue outbox state.
 */
export interface MoveSpecDoc {
  _id: string;
  project_id: string;
  organization_id: string;
  name: string;
  /**
   * The name's confusable skeleton (UTS #39; services/shared/text/confusables.ts), to find a public
   * name of another project that looks the same. Set with the name; absent on MoveSpecs created
   * before the field, until the start-up backfill (which fills in the public ones).
   */
  name_skeleton?: string;
  /** Which table and algorithm made `name_skeleton` (confusables.ts, `skeletonVersion`). */
  name_skeleton_version?: string;
  description?: string;
  /**
   * The words of the name and description, the splitting's version and the folded name, for the
   * project's listing (domain/search-fields.ts). Set with the name and description; absent on
   * MoveSpecs stored before the fields, until the start-up backfill.
   */
  search_words?: string[];
  search_words_version?: number;
  name_key?: string;
  visibility: VisibilityName;
  created_at: Date;
  updated_at: Date;
  archived_at?: Date;
  /** Archived because its project was: writes are refused as PROJECT_ARCHIVED, the cause. */
  archived_with_project?: true;
  current_released_version_id?: string;
  /**
   * The number of the newest version, written in the transaction that stores it (see
   * VersionStore.append) so that a racing archive of the MoveSpec is a write conflict; numbers
   * are taken from the versions themselves, never from this field. Absent on MoveSpecs without
   * versions since the field was added.
   */
  last_version_number?: number;
  created_by: string;
  updated_by: string;
  /** Bumped with every metadata change: the ETag, and the revision the catalogue orders by. */
  revision: number;
  /**
   * Outbox flag, set in the same update as any change the catalogue must see; the relay clears it
   * (only for the revision it pushed) once the catalogue has stored that revision.
   */
  catalogue_pending: boolean;
  draft: DraftDoc;
  /**
   * The draft's YAML, at the top level (not inside `draft`) so that metadata reads can leave it
   * out with a top-level projection.
   */
  draft_yaml_source: string;
}

export interface DraftDoc {
  draft_id: string;
  updated_at: Date;
  updated_by: string;
  revision: number;
}

export interface VersionDoc {
  _id: string;
  movespec_id: string;
  version_number: number;
  content_hash: string;
  yaml_source: string;
  created_at: Date;
  created_by: string;
}

/** Every MoveSpec field but the draft's YAML (metadata reads never need it). */
export const METADATA_PROJECTION = { draft_yaml_source: 0 } as const;
