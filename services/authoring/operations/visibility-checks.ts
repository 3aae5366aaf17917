import { AuthoringReason, Code, Reason, serviceError } from "@movement-detection/shared/errors";
import { isUuid } from "@movement-detection/shared/ids";
import type { Caller } from "@movement-detection/shared/security";
import { type Access, accessOf } from "../domain/access.js";
import type { MoveSpecDoc } from "../store/documents.js";
import type { MoveSpecStore } from "../store/movespec-store.js";

export function moveSpecNotFound(movespecId: string) {
  return serviceError(Code.NotFound, Reason.movespecNotFound, "movespec not found", {
    movespec_id: movespecId,
  });
}

export function versionNotFound(versionId: string) {
  return serviceError(Code.NotFound, AuthoringReason.versionNotFound, "version not found", {
    movespec_version_id: versionId,
  });
}

export interface Visible {
  readonly doc: MoveSpecDoc;
  readonly access: Exclude<Access, "none">;
}

/**
 * The MoveSpec if the caller may read it; hidden ones (and ids that are not UUIDs) are NOT_FOUND,
 * word for word like a MoveSpec that does not exist.
 */
export async function findVisible(
  store: MoveSpecStore,
  movespecId: string,
  caller: Caller | undefined,
  withDraft = false,
): Promise<Visible> {
  if (!isUuid(movespecId)) throw moveSpecNotFound(movespecId);
  const doc = withDraft
    ? await store.findWithDraft(movespecId)
    : await store.findMetadata(movespecId);
  if (!doc) throw moveSpecNotFound(movespecId);
  const access = accessOf(doc, caller?.projectId ?? "");
  if (access === "none") throw moveSpecNotFound(movespecId);
  return { doc, access };
}

/**
 * The MoveSpec if the caller's project owns it. A public MoveSpec of another project is
 * PERMISSION_DENIED PROJECT_MISMATCH (its existence is no secret); a hidden one is NOT_FOUND.
 */
export async function findOwned(
  store: MoveSpecStore,
  movespecId: string,
  caller: Caller | undefined,
  withDraft = false,
): Promise<MoveSpecDoc> {
  const { doc, access } = await findVisible(store, movespecId, caller, withDraft);
  if (access !== "owner") {
    throw serviceError(
      Code.PermissionDenied,
      Reason.projectMismatch,
      "this MoveSpec belongs to another project",
      { movespec_id: movespecId },
    );
  }
  return doc;
}

export function moveSpecArchived(movespecId: string) {
  return serviceError(
    Code.FailedPrecondition,
    AuthoringReason.movespecArchived,
    "the MoveSpec is archived",
    {
      movespec_id: movespecId,
    },
  );
}

export function projectArchived(projectId: string) {
  return serviceError(Code.FailedPrecondition, Reason.projectArchived, "the project is archived", {
    project_id: projectId,
  });
}

/**
 * The refusal of a write to an archived MoveSpec: PROJECT_ARCHIVED when it went with its
 * project, so a client gets the same answer before and after the project's MoveSpecs are archived.
 */
export function archivedRefusal(
  doc: Pick<MoveSpecDoc, "_id" | "project_id" | "archived_with_project">,
) {
  return doc.archived_with_project ? projectArchived(doc.project_id) : moveSpecArchived(doc._id);
}

/**
 * Why a conditional write to a MoveSpec that was just found matched nothing: only the archive
 * filter can refuse it, so the MoveSpec is read again to answer as if it had been archived before.
 */
export async function refusalAfterFailedWrite(store: MoveSpecStore, movespecId: string) {
  const current = await store.findMetadata(movespecId);
  return current ? archivedRefusal(current) : moveSpecNotFound(movespecId);
}

export function assertNotArchived(doc: MoveSpecDoc): void {
  if (doc.archived_at) throw archivedRefusal(doc);
}
