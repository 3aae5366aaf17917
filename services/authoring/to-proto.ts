import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  type Draft,
  DraftSchema,
  type Issue,
  IssueSchema,
  type MoveSpec,
  MoveSpecSchema,
  type Version,
  VersionSchema,
  Visibility,
} from "@movement-detection/proto/authoring/v1";
import type { VisibilityName } from "./domain/access.js";
import type { LoaderIssue } from "./domain/movespec-loader.js";
import type { MoveSpecDoc, VersionDoc } from "./store/documents.js";

/** Stored documents -> authoring.v1 messages (and the visibility enum both ways). */
export const VISIBILITY_TO_PROTO: Readonly<Record<VisibilityName, Visibility>> = {
  private: Visibility.PRIVATE,
  public: Visibility.PUBLIC,
  delisted: Visibility.DELISTED,
};

export function visibilityName(value: Visibility): VisibilityName | undefined {
  switch (value) {
    case Visibility.PRIVATE:
      return "private";
    case Visibility.PUBLIC:
      return "public";
    case Visibility.DELISTED:
      return "delisted";
    default:
      return undefined;
  }
}

export function moveSpecMessage(doc: MoveSpecDoc): MoveSpec {
  return create(MoveSpecSchema, {
    movespecId: doc._id,
    projectId: doc.project_id,
    organizationId: doc.organization_id,
    name: doc.name,
    description: doc.description,
    visibility: VISIBILITY_TO_PROTO[doc.visibility],
    createdAt: timestampFromDate(doc.created_at),
    updatedAt: timestampFromDate(doc.updated_at),
    archivedAt: doc.archived_at ? timestampFromDate(doc.archived_at) : undefined,
    currentReleasedVersionId: doc.current_released_version_id,
    revision: doc.revision,
  });
}

export function draftMessage(doc: MoveSpecDoc): Draft {
  return create(DraftSchema, {
    draftId: doc.draft.draft_id,
    movespecId: doc._id,
    yamlSource: doc.draft_yaml_source,
    updatedAt: timestampFromDate(doc.draft.updated_at),
    revision: doc.draft.revision,
  });
}

export function versionMessage(doc: VersionDoc): Version {
  return create(VersionSchema, {
    movespecVersionId: doc._id,
    movespecId: doc.movespec_id,
    versionNumber: doc.version_number,
    contentHash: doc.content_hash,
    createdAt: timestampFromDate(doc.created_at),
    yamlSource: doc.yaml_source,
  });
}

export function issueMessage(issue: LoaderIssue): Issue {
  return create(IssueSchema, {
    code: issue.code,
    message: issue.message,
    severity: issue.severity,
    line: issue.line,
    column: issue.column,
    path: issue.path,
  });
}
