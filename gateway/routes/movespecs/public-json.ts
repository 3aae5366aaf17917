import {
  type Draft,
  type Issue,
  type MoveSpec,
  type ProjectMoveSpec,
  type ValidateDraftResponse,
  type Version,
  Visibility,
} from "@movement-detection/proto/authoring/v1";
import type { Entry } from "@movement-detection/proto/catalogue/v1";
import type {
  DraftJson,
  MoveSpecJson,
  ProjectMoveSpecJson,
  ValidationIssueJson,
  ValidationResultJson,
  VersionJson,
} from "@movement-detection/shared/api";
import { iso, requiredIso } from "../timestamps.js";

/*
 * Internal messages -> the spec's JSON resources (typed by the API's schemas): snake_case, ISO
 * 8601 UTC timestamps with milliseconds, optional fields omitted (never null), internal fields
 * (organization, creators, revisions) left out.
 */

const VISIBILITY_NAMES: Readonly<Record<number, MoveSpecJson["visibility"]>> = {
  [Visibility.PRIVATE]: "private",
  [Visibility.PUBLIC]: "public",
  [Visibility.DELISTED]: "delisted",
};

/** Drops undefined members, so absent optional fields are omitted. */
function compact<T extends object>(object: T): T {
  const members = object as Record<string, unknown>;
  for (const key of Object.keys(members)) if (members[key] === undefined) delete members[key];
  return object;
}

/** The public MoveSpec resource, from authoring's message or the catalogue's entry. */
export function moveSpecJson(movespec: MoveSpec | Entry, starCount?: number): MoveSpecJson {
  return compact({
    movespec_id: movespec.movespecId,
    project_id: movespec.projectId,
    name: movespec.name,
    created_at: requiredIso(movespec.createdAt),
    updated_at: requiredIso(movespec.updatedAt),
    visibility: VISIBILITY_NAMES[movespec.visibility] ?? "private",
    archived_at: iso(movespec.archivedAt),
    current_released_version_id: movespec.currentReleasedVersionId || undefined,
    description: movespec.description || undefined,
    star_count: "starCount" in movespec ? movespec.starCount : starCount,
  });
}

/** A project's MoveSpec as its listing shows it; a star count only when the catalogue gave one. */
export function projectMoveSpecJson(
  item: ProjectMoveSpec,
  starCounts: Readonly<Record<string, number>>,
): ProjectMoveSpecJson {
  const movespec = item.movespec;
  if (!movespec) throw new Error("the service listed an item without its movespec");
  return compact({
    ...moveSpecJson(movespec, starCounts[movespec.movespecId]),
    released_version_number: item.releasedVersionNumber,
    draft_updated_at: requiredIso(item.draftUpdatedAt),
  });
}

export function draftJson(draft: Draft): DraftJson {
  return {
    draft_id: draft.draftId,
    movespec_id: draft.movespecId,
    updated_at: requiredIso(draft.updatedAt),
    yaml_source: draft.yamlSource,
  };
}

export function versionJson(version: Version): VersionJson {
  return {
    movespec_version_id: version.movespecVersionId,
    movespec_id: version.movespecId,
    version_number: version.versionNumber,
    content_hash: version.contentHash,
    created_at: requiredIso(version.createdAt),
    yaml_source: version.yamlSource,
  };
}

function issueJson(issue: Issue): ValidationIssueJson {
  return compact({
    code: issue.code,
    message: issue.message,
    severity: issue.severity,
    line: issue.line,
    column: issue.column,
    path: issue.path,
  });
}

export function validationJson(result: ValidateDraftResponse): ValidationResultJson {
  return {
    ok: result.ok,
    target_id: result.targetId,
    target_type: result.targetType as ValidationResultJson["target_type"],
    validated_at: requiredIso(result.validatedAt),
    errors: result.errors.map(issueJson),
    warnings: result.warnings.map(issueJson),
  };
}
