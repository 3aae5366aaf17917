import type { Visibility } from "@movement-detection/proto/catalogue/v1";

/** A catalogue entry as stored: a MoveSpec's public metadata, search keywords and stars. */
export interface EntryDoc {
  _id: string;
  project_id: string;
  organization_id: string;
  name: string;
  /** Case- and accent-folded name, for SORT_NAME. */
  name_key: string;
  description?: string;
  visibility: Visibility;
  created_at: Date;
  updated_at: Date;
  archived_at?: Date;
  current_released_version_id?: string;
  /** The authoring revision this entry reflects; older snapshots are ignored. */
  revision: number;
  /** In the public catalogue: PUBLIC and not archived. */
  listed: boolean;
  keywords: string[];
  /** How `keywords` were split (absent: before versions were stored); see domain/keywords.ts. */
  keywords_version?: number;
  star_count: number;
}

export interface StarDoc {
  /** `${organization_id}:${movespec_id}`: one star per organization. */
  _id: string;
  organization_id: string;
  movespec_id: string;
  created_at: Date;
}
