import { create, fromJson, toJson } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  type ArchiveMoveSpecRequest,
  type ArchiveProjectMoveSpecsRequest,
  type CreateMoveSpecRequest,
  type CreateMoveSpecResponse,
  CreateMoveSpecResponseSchema,
  type DelistMoveSpecRequest,
  type GetMoveSpecRequest,
  type ListProjectMoveSpecsRequest,
  type ListProjectMoveSpecsResponse,
  ListProjectMoveSpecsResponseSchema,
  type MoveSpec,
  ProjectMoveSpecSchema,
  ProjectSort,
  type ResyncCatalogueRequest,
  type SetVisibilityRequest,
  type UpdateMoveSpecRequest,
  Visibility,
} from "@movement-detection/proto/authoring/v1";
import { checkedTimestampDate } from "@movement-detection/shared/api/timestamps";
import { Code, Reason, serviceError } from "@movement-detection/shared/errors";
import { fingerprintOf } from "@movement-detection/shared/idempotency";
import { isUuid, newId } from "@movement-detection/shared/ids";
import type { Called } from "@movement-detection/shared/security";
import { SEARCH_QUERY_LIMITS } from "@movement-detection/shared/text";
import type { VisibilityName } from "../domain/access.js";
import { checkDescription, checkName, checkPage } from "../domain/limits.js";
import { MOVESPEC_TEMPLATE } from "../domain/movespec-loader.js";
import { queryWords, searchFieldsOf } from "../domain/search-fields.js";
import type { MoveSpecDoc } from "../store/documents.js";
import { draftMessage, moveSpecMessage, visibilityName } from "../to-proto.js";
import type { AuthoringDeps } from "./deps.js";
import { nameSkeletonFields, refuseLookalike } from "./name-lookalikes.js";
import {
  findVisible,
  moveSpecArchived,
  moveSpecNotFound,
  refusalAfterFailedWrite,
} from "./visibility-checks.js";

/** Creating and reading MoveSpecs, and the admin tool's visibility, delist and archive. */
export function createMoveSpecOperations(deps: AuthoringDeps) {
  async function insertNew(
    request: Called<CreateMoveSpecRequest>,
    fields: { name: string; description: string | undefined; visibility: VisibilityName },
    movespecId: string,
  ): Promise<CreateMoveSpecResponse> {
    const now = deps.now();
    const caller = request.caller;
    const actor = caller?.credentialId ?? "";
    const doc: MoveSpecDoc = {
      _id: movespecId,
      project_id: request.projectId,
      organization_id: caller?.organizationId ?? "",
      name: fields.name,
      ...nameSkeletonFields(fields.name),
      ...(fields.description === undefined ? {} : { description: fields.description }),
      ...searchFieldsOf(fields.name, fields.description),
      visibility: fields.visibility,
      created_at: now,
      updated_at: now,
      created_by: actor,
      updated_by: actor,
      revision: 1,
      catalogue_pending: true,
      draft_yaml_source: MOVESPEC_TEMPLATE,
      draft: {
        draft_id: newId(now.getTime()),
        updated_at: now,
        updated_by: actor,
        revision: 1,
      },
    };
    // An earlier attempt of the same idempotent request may have inserted it already.
    const stored = (await deps.movespecs.insert(doc))
      ? doc
      : await deps.movespecs.findWithDraft(movespecId);
    if (!stored) throw serviceError(Code.Internal, Reason.internal, "movespec vanished");
    return create(CreateMoveSpecResponseSchema, {
      movespec: moveSpecMessage(stored),
      draft: draftMessage(stored),
    });
  }

  async function adminUpdate(
    movespecId: string,
    set: Partial<MoveSpecDoc>,
    where: Record<string, unknown> = {},
  ): Promise<MoveSpec> {
    if (!isUuid(movespecId)) throw moveSpecNotFound(movespecId);
    const updated = await deps.movespecs.updateMetadata(movespecId, where, set);
    if (!updated) {
      const exists = await deps.movespecs.findMetadata(movespecId);
      if (!exists) throw moveSpecNotFound(movespecId);
      // Only the archive filter can refuse an existing MoveSpec here.
      throw moveSpecArchived(movespecId);
    }
    deps.relay.nudge();
    return moveSpecMessage(updated);
  }

  /**
   * Before a MoveSpec becomes public: its name must not look like another project's public one,
   * and it must carry its skeleton (one created before the field has none) so that later names
   * are compared with it.
   */
  async function prepareToPublish(movespecId: string): Promise<void> {
    const existing = isUuid(movespecId) ? await deps.movespecs.findMetadata(movespecId) : null;
    if (!existing || existing.archived_at || existing.visibility === "public") return;
    await refuseLookalike(deps.movespecs, existing.project_id, existing.name);
    await deps.movespecs.setNameSkeleton(
      movespecId,
      existing.name,
      nameSkeletonFields(existing.name),
    );
  }

  return {
    async createMoveSpec(request: Called<CreateMoveSpecRequest>): Promise<CreateMoveSpecResponse> {
      const caller = request.caller;
      if (!caller?.projectId) {
        throw serviceError(
          Code.Unauthenticated,
          Reason.tokenMissing,
          "a project-bound caller is required",
        );
      }
      if (request.projectId === "") {
        throw serviceError(Code.InvalidArgument, Reason.fieldRequired, "project_id is required", {
          field: "project_id",
        });
      }
      if (!isUuid(request.projectId)) {
        throw serviceError(Code.InvalidArgument, Reason.fieldInvalid, "project_id must be a UUID", {
          field: "project_id",
        });
      }
      if (request.projectId !== caller.projectId) {
        throw serviceError(
          Code.PermissionDenied,
          Reason.projectMismatch,
          "project_id must be the project of the access token",
          { field: "project_id" },
        );
      }
      const name = checkName(request.name);
      const description = checkDescription(request.description);
      const visibility =
        request.visibility === Visibility.UNSPECIFIED
          ? "private"
          : visibilityName(request.visibility);
      if (visibility !== "private" && visibility !== "public") {
        throw serviceError(
          Code.InvalidArgument,
          Reason.fieldInvalid,
          "visibility must be private or public",
          { field: "visibility", allowed: ["private", "public"] },
        );
      }
      await deps.projects.assertWritable(caller);
      const fields = { name, description, visibility } as const;
      // Only a MoveSpec stored now (not a replay of an Idempotency-Key) needs the project asked
      // again and the catalogue relay woken.
      const create = async (id: string) => {
        if (visibility === "public") await refuseLookalike(deps.movespecs, caller.projectId, name);
        const created = await insertNew(request, fields, id);
        deps.projects.recheckAfterCreate(caller);
        deps.relay.nudge();
        return created;
      };
      let response: CreateMoveSpecResponse;
      if (request.idempotencyKey === "") {
        response = await create(newId());
      } else {
        const outcome = await deps.idempotency.run(
          {
            scope: `${request.projectId}:CreateMoveSpec`,
            key: request.idempotencyKey,
            fingerprint: fingerprintOf({
              project_id: request.projectId,
              name: request.name,
              description: request.description,
              visibility: request.visibility,
            }),
          },
          async ({ reservedId }) => toJson(CreateMoveSpecResponseSchema, await create(reservedId)),
        );
        response = fromJson(CreateMoveSpecResponseSchema, outcome.value);
      }
      return response;
    },

    async getMoveSpec(request: Called<GetMoveSpecRequest>): Promise<MoveSpec> {
      const { doc } = await findVisible(deps.movespecs, request.movespecId, request.caller);
      return moveSpecMessage(doc);
    },

    /**
     * The caller's project's MoveSpecs, whatever their visibility (archived ones too): searched
     * with the catalogue's words, sorted with a total order, paged. Any other project is
     * PROJECT_NOT_FOUND, as the gateway's GET /api/projects/{id} answers it.
     */
    async listProject(
      request: Called<ListProjectMoveSpecsRequest>,
    ): Promise<ListProjectMoveSpecsResponse> {
      const caller = request.caller;
      if (!caller?.projectId) {
        throw serviceError(
          Code.Unauthenticated,
          Reason.tokenMissing,
          "a project-bound caller is required",
        );
      }
      if (request.projectId !== caller.projectId) {
        throw serviceError(Code.NotFound, Reason.projectNotFound, "project not found");
      }
      const page = checkPage(request.limit, request.offset);
      const sort =
        request.sort === ProjectSort.NAME
          ? "name"
          : request.sort === ProjectSort.RECENT || request.sort === ProjectSort.UNSPECIFIED
            ? "recent"
            : undefined;
      if (!sort) {
        throw serviceError(
          Code.InvalidArgument,
          Reason.fieldInvalid,
          "sort must be recent or name",
          {
            field: "sort",
          },
        );
      }
      if ([...request.q].length > SEARCH_QUERY_LIMITS.length) {
        throw serviceError(
          Code.InvalidArgument,
          Reason.fieldInvalid,
          `q must be at most ${SEARCH_QUERY_LIMITS.length} characters`,
          { field: "q", max_length: SEARCH_QUERY_LIMITS.length },
        );
      }
      // One word more than allowed is enough to refuse: no need to split the rest.
      const words = queryWords(request.q, SEARCH_QUERY_LIMITS.words + 1);
      if (words.length > SEARCH_QUERY_LIMITS.words) {
        throw serviceError(
          Code.InvalidArgument,
          Reason.fieldInvalid,
          `q may hold at most ${SEARCH_QUERY_LIMITS.words} words`,
          { field: "q", max_words: SEARCH_QUERY_LIMITS.words },
        );
      }
      const { items, total } = await deps.movespecs.listProject({
        projectId: caller.projectId,
        words,
        sort,
        ...page,
      });
      const released = await deps.versions.numbersOf(
        items.flatMap((doc) => doc.current_released_version_id ?? []),
      );
      return create(ListProjectMoveSpecsResponseSchema, {
        items: items.map((doc) =>
          create(ProjectMoveSpecSchema, {
            movespec: moveSpecMessage(doc),
            releasedVersionNumber: doc.current_released_version_id
              ? released.get(doc.current_released_version_id)
              : undefined,
            draftUpdatedAt: timestampFromDate(doc.draft.updated_at),
          }),
        ),
        total,
        hasMore: page.offset + items.length < total,
      });
    },

    async setVisibility(request: SetVisibilityRequest): Promise<MoveSpec> {
      checkAudit(request);
      const visibility = visibilityName(request.visibility);
      if (visibility !== "private" && visibility !== "public") {
        throw serviceError(
          Code.InvalidArgument,
          Reason.fieldInvalid,
          "visibility must be PRIVATE or PUBLIC (use DelistMoveSpec to delist)",
          { field: "visibility" },
        );
      }
      if (visibility === "public") await prepareToPublish(request.movespecId);
      deps.logger.info(
        { movespec_id: request.movespecId, visibility, actor: request.actor },
        "visibility set",
      );
      return adminUpdate(request.movespecId, { visibility, updated_at: deps.now() });
    },

    async delist(request: DelistMoveSpecRequest): Promise<MoveSpec> {
      checkAudit(request, { reasonRequired: true });
      deps.logger.info(
        { movespec_id: request.movespecId, actor: request.actor, reason: request.reason },
        "movespec delisted",
      );
      return adminUpdate(request.movespecId, { visibility: "delisted", updated_at: deps.now() });
    },

    async update(request: UpdateMoveSpecRequest): Promise<MoveSpec> {
      checkAudit(request);
      const set: Partial<MoveSpecDoc> = { updated_at: deps.now() };
      if (request.name !== undefined) {
        set.name = checkName(request.name);
        Object.assign(set, nameSkeletonFields(set.name));
      }
      const description =
        request.description === undefined ? undefined : checkDescription(request.description);
      if (description !== undefined) set.description = description;
      const unset = request.description === "" ? (["description"] as const) : [];
      if (!isUuid(request.movespecId)) throw moveSpecNotFound(request.movespecId);
      if (set.name !== undefined) {
        const existing = await deps.movespecs.findMetadata(request.movespecId);
        if (existing?.visibility === "public" && !existing.archived_at) {
          await refuseLookalike(deps.movespecs, existing.project_id, set.name);
        }
      }
      deps.logger.info(
        { movespec_id: request.movespecId, actor: request.actor },
        "movespec updated",
      );
      const updated = await deps.movespecs.updateMetadata(
        request.movespecId,
        { archived_at: { $exists: false } },
        set,
        unset,
      );
      if (!updated) throw await refusalAfterFailedWrite(deps.movespecs, request.movespecId);
      await deps.movespecs.setSearchFields(
        updated._id,
        updated,
        searchFieldsOf(updated.name, updated.description),
      );
      deps.relay.nudge();
      return moveSpecMessage(updated);
    },

    async archive(request: ArchiveMoveSpecRequest): Promise<MoveSpec> {
      checkAudit(request);
      if (!isUuid(request.movespecId)) throw moveSpecNotFound(request.movespecId);
      const existing = await deps.movespecs.findMetadata(request.movespecId);
      if (!existing) throw moveSpecNotFound(request.movespecId);
      if (existing.archived_at) return moveSpecMessage(existing);
      deps.logger.info(
        { movespec_id: request.movespecId, actor: request.actor },
        "movespec archived",
      );
      const now = deps.now();
      return adminUpdate(
        request.movespecId,
        { archived_at: now, updated_at: now },
        { archived_at: { $exists: false } },
      );
    },

    /**
     * After the auth service archived a project (the admin tool's archive-project, or a write
     * that found the project archived): its MoveSpecs can no longer be written, so they carry
     * archived_at, the project's time, and leave the public catalogue.
     */
    async archiveProject(request: ArchiveProjectMoveSpecsRequest): Promise<number> {
      checkAudit(request);
      if (!isUuid(request.projectId)) {
        throw serviceError(Code.InvalidArgument, Reason.fieldInvalid, "project_id must be a UUID", {
          field: "project_id",
        });
      }
      const at = request.archivedAt
        ? checkedTimestampDate(request.archivedAt, "archived_at")
        : deps.now();
      return archiveMoveSpecsOfProject(deps, request.projectId, at, request.actor);
    },

    async resyncCatalogue(request: ResyncCatalogueRequest): Promise<number> {
      const { movespecId } = request;
      if (movespecId !== undefined && !isUuid(movespecId)) throw moveSpecNotFound(movespecId);
      const marked = await deps.movespecs.markAllCataloguePending(movespecId);
      // One MoveSpec asked for and none marked: it does not exist, which "marked 0" hid.
      if (movespecId !== undefined && marked === 0) throw moveSpecNotFound(movespecId);
      deps.relay.nudge();
      return marked;
    },
  };
}

/**
 * Archives, at `at`, the MoveSpecs of a project auth has archived, and tells the catalogue: the
 * admin tool's ArchiveProjectMoveSpecs and a write finding its project archived both come here.
 */
export async function archiveMoveSpecsOfProject(
  deps: Pick<AuthoringDeps, "movespecs" | "relay" | "logger">,
  projectId: string,
  at: Date,
  actor: string,
): Promise<number> {
  const archived = await deps.movespecs.archiveAllOfProject(projectId, at);
  if (archived > 0) {
    deps.logger.info(
      { project_id: projectId, actor, archived },
      "movespecs of an archived project archived",
    );
    deps.relay.nudge();
  }
  return archived;
}

export type MoveSpecOperations = ReturnType<typeof createMoveSpecOperations>;

/** An operator's name (`actor`) and a delisting's `reason`: logged and kept, so bounded. */
export const AUDIT_LIMITS = { actorChars: 200, reasonChars: 1000 } as const;

/** Checks the operator fields of an admin RPC before anything is logged or written. */
function checkAudit(
  request: { readonly actor: string; readonly reason?: string },
  options: { reasonRequired?: boolean } = {},
): void {
  if (request.actor.length > AUDIT_LIMITS.actorChars) {
    throw serviceError(
      Code.InvalidArgument,
      Reason.fieldInvalid,
      `actor is at most ${AUDIT_LIMITS.actorChars} characters`,
      { field: "actor", max_length: AUDIT_LIMITS.actorChars },
    );
  }
  const reason = request.reason ?? "";
  if (options.reasonRequired && reason.trim() === "") {
    throw serviceError(Code.InvalidArgument, Reason.fieldRequired, "reason is required", {
      field: "reason",
    });
  }
  if (reason.length > AUDIT_LIMITS.reasonChars) {
    throw serviceError(
      Code.InvalidArgument,
      Reason.fieldInvalid,
      `reason is at most ${AUDIT_LIMITS.reasonChars} characters`,
      { field: "reason", max_length: AUDIT_LIMITS.reasonChars },
    );
  }
}
