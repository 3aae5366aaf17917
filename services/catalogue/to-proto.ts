import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  type Entry,
  EntrySchema,
  type EntrySnapshot,
  Visibility,
} from "@movement-detection/proto/catalogue/v1";
import { checkedTimestampDate } from "@movement-detection/shared/api/timestamps";
import { KEYWORDS_VERSION, keywordsOf, nameKeyOf } from "./domain/keywords.js";
import type { EntryDoc } from "./store/entry-document.js";

/** A pushed snapshot -> the stored entry (without stars, which only the catalogue changes). */
export function entryFromSnapshot(snapshot: EntrySnapshot): Omit<EntryDoc, "star_count"> {
  const archived = snapshot.archivedAt !== undefined;
  return {
    _id: snapshot.movespecId,
    project_id: snapshot.projectId,
    organization_id: snapshot.organizationId,
    name: snapshot.name,
    name_key: nameKeyOf(snapshot.name),
    description: snapshot.description || undefined,
    visibility: snapshot.visibility,
    created_at: snapshot.createdAt
      ? checkedTimestampDate(snapshot.createdAt, "created_at")
      : new Date(0),
    updated_at: snapshot.updatedAt
      ? checkedTimestampDate(snapshot.updatedAt, "updated_at")
      : new Date(0),
    archived_at: snapshot.archivedAt
      ? checkedTimestampDate(snapshot.archivedAt, "archived_at")
      : undefined,
    current_released_version_id: snapshot.currentReleasedVersionId || undefined,
    revision: snapshot.revision,
    listed: snapshot.visibility === Visibility.PUBLIC && !archived,
    keywords: keywordsOf(snapshot.name, snapshot.description),
    keywords_version: KEYWORDS_VERSION,
  };
}

export function entryMessage(doc: EntryDoc): Entry {
  return create(EntrySchema, {
    movespecId: doc._id,
    projectId: doc.project_id,
    name: doc.name,
    description: doc.description,
    visibility: doc.visibility,
    createdAt: timestampFromDate(doc.created_at),
    updatedAt: timestampFromDate(doc.updated_at),
    archivedAt: doc.archived_at ? timestampFromDate(doc.archived_at) : undefined,
    currentReleasedVersionId: doc.current_released_version_id,
    starCount: doc.star_count,
  });
}
