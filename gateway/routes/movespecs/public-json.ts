import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  type Draft,
  type Issue,
  type MoveSpec,
  type ValidateDraftResponse,
  type Version,
  Visibility,
} from "../../../proto/gen/authoring/v1/authoring_pb.js";
import type { Entry } from "../../../proto/gen/catalogue/v1/catalogue_pb.js";

/**
 * Internal messages -> the spec's JSON resources: snake_case, ISO 8601 UTC timestamps with
 * milliseconds, optional fields omitted (never null), internal fields (organization, creators,
 * revisions) left out.
 */
export type Json = Record<string, unknown>;

const VISIBILITY_NAMES: Readonly<Record<number, string>> = {
  [Visibility.PRIVATE]: "private",
  [Visibility.PUBLIC]: "public",
  [Visibility.DELISTED]: "delisted",
};

function iso(timestamp: Timestamp | undefined): string | undefined {
  return timestamp ? timestampDate(timestamp).toISOString() : undefined;
}

/** Drops undefined members, so absent optional fields are omitted. */
function compact(object: Json): Json {
  for (const key of Object.keys(object)) if (object[key] === undefined) delete object[key];
  return object;
}

/** The public MoveSpec resource, from authoring's message or the catalogue's entry. */
export function moveSpecJson(movespec: MoveSpec | Entry, starCount?: number): Json {
  return compact({
    movespec_id: movespec.movespecId,
    project_id: movespec.projectId,
    name: movespec.name,
    created_at: iso(movespec.createdAt),
    updated_at: iso(movespec.updatedAt),
    visibility: VISIBILITY_NAMES[movespec.visibility] ?? "private",
    archived_at: iso(movespec.archivedAt),
    current_released_version_id: movespec.currentReleasedVersionId || undefined,
    description: movespec.description || undefined,
    star_count: "starCount" in movespec ? movespec.starCount : starCount,
  });
}

export function draftJson(draft: Draft): Json {
  return {
    draft_id: draft.draftId,
    movespec_id: draft.movespecId,
    updated_at: iso(draft.updatedAt),
    yaml_source: draft.yamlSource,
  };
}

export function versionJson(version: Version): Json {
  return {
    movespec_version_id: version.movespecVersionId,
    movespec_id: version.movespecId,
    version_number: version.versionNumber,
    content_hash: version.contentHash,
    created_at: iso(version.createdAt),
    yaml_source: version.yamlSource,
  };
}

function issueJson(issue: Issue): Json {
  return compact({
    code: issue.code,
    message: issue.message,
    severity: issue.severity,
    line: issue.line,
    column: issue.column,
    path: issue.path,
  });
}

export function validationJson(result: ValidateDraftResponse): Json {
  return {
    ok: result.ok,
    target_id: result.targetId,
    target_type: result.targetType,
    validated_at: iso(result.validatedAt),
    errors: result.errors.map(issueJson),
    warnings: result.warnings.map(issueJson),
  };
}
