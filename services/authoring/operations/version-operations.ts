import { createHash } from "node:crypto";
import { create, fromJson, type JsonObject, toJson } from "@bufbuild/protobuf";
import {
  type CreateVersionRequest,
  type GetReleasedSourceRequest,
  type GetReleasedSourceResponse,
  GetReleasedSourceResponseSchema,
  type GetVersionRequest,
  type ListVersionsRequest,
  type ListVersionsResponse,
  ListVersionsResponseSchema,
  type MoveSpec,
  type ReleaseVersionRequest,
  type ResolveVersionRequest,
  type ResolveVersionResponse,
  ResolveVersionResponseSchema,
  type Version,
  VersionSchema,
} from "@movement-detection/proto/authoring/v1";
import { AuthoringReason, Code, Reason, serviceError } from "@movement-detection/shared/errors";
import { fingerprintOf } from "@movement-detection/shared/idempotency";
import { isUuid, newId } from "@movement-detection/shared/ids";
import type { Called, Caller } from "@movement-detection/shared/security";
import { accessOf } from "../domain/access.js";
import { checkPage } from "../domain/limits.js";
import { loadMoveSpec } from "../domain/movespec-loader.js";
import type { VersionDoc } from "../store/documents.js";
import { moveSpecMessage, versionMessage } from "../to-proto.js";
import type { AuthoringDeps } from "./deps.js";
import {
  assertNotArchived,
  findOwned,
  findVisible,
  moveSpecNotFound,
  refusalAfterFailedWrite,
  versionNotFound,
} from "./visibility-checks.js";

/** Attempts at the next number before giving up (only other processes can take it from us). */
const NUMBER_ATTEMPTS = 50;

export function contentHashOf(yamlSource: string): string {
  return createHash("sha256").update(yamlSource, "utf8").digest("hex");
}

/** Immutable versions: freeze, list, read, release, resolve. */
export function createVersionOperations(deps: AuthoringDeps) {
  /**
   * Freezes the current draft as the next version. The version store numbers it after the newest
   * version and stores it only while the MoveSpec is not archived, atomically (an archive that has
   * answered is never followed by a version). Its unique (movespec_id, version_number) index
   * settles any race the transaction did not see (a replica still on the old code): the loser
   * tries the next number. Nothing is reserved before the insert, so a failure leaves no gap.
   */
  async function freeze(
    movespecId: string,
    versionId: string,
    caller: Caller | undefined,
  ): Promise<VersionDoc> {
    const earlier = await deps.versions.findById(versionId);
    if (earlier) return earlier;
    const doc = await deps.movespecs.findWithDraft(movespecId);
    if (!doc) throw moveSpecNotFound(movespecId);
    assertNotArchived(doc);
    const yamlSource = doc.draft_yaml_source;
    const loaded = loadMoveSpec(yamlSource);
    if (loaded.errors.length > 0) {
      throw serviceError(
        Code.FailedPrecondition,
        AuthoringReason.draftInvalid,
        `the draft does not load (${loaded.errors.length} error${loaded.errors.length === 1 ? "" : "s"}); validate it for details`,
        { errors: loaded.errors as unknown as JsonObject[] },
      );
    }
    const contentHash = contentHashOf(yamlSource);
    for (let attempt = 0; attempt < NUMBER_ATTEMPTS; attempt += 1) {
      const outcome = await deps.versions.append({
        _id: versionId,
        movespec_id: movespecId,
        content_hash: contentHash,
        yaml_source: yamlSource,
        created_at: deps.now(),
        created_by: caller?.credentialId ?? "",
      });
      if (outcome.kind === "inserted") return outcome.doc;
      // Archived since the check above: answer as if it had been archived before.
      if (outcome.kind === "refused")
        throw await refusalAfterFailedWrite(deps.movespecs, movespecId);
      if (outcome.kind === "id_exists") {
        const stored = await deps.versions.findById(versionId);
        if (stored) return stored;
      }
    }
    throw serviceError(
      Code.Aborted,
      Reason.concurrentModification,
      "too many concurrent version creations; retry",
      { retry_after_seconds: 1 },
    );
  }

  /** A version the caller may see, or VERSION_NOT_FOUND (never saying why). */
  async function findVisibleVersion(versionId: string, caller: Caller | undefined) {
    if (!isUuid(versionId)) throw versionNotFound(versionId);
    const version = await deps.versions.findById(versionId);
    if (!version) throw versionNotFound(versionId);
    const owner = await deps.movespecs.findMetadata(version.movespec_id);
    if (!owner || accessOf(owner, caller?.projectId ?? "") === "none")
      throw versionNotFound(versionId);
    return { version, owner };
  }

  return {
    async createVersion(request: Called<CreateVersionRequest>): Promise<Version> {
      const existing = await findOwned(deps.movespecs, request.movespecId, request.caller);
      assertNotArchived(existing);
      if (request.caller) await deps.projects.assertWritable(request.caller);
      const movespecId = existing._id;
      const run = (versionId: string) =>
        deps.versionLocks.run(movespecId, () => freeze(movespecId, versionId, request.caller));
      if (request.idempotencyKey === "") return versionMessage(await run(newId()));
      const outcome = await deps.idempotency.run(
        {
          scope: `${existing.project_id}:CreateVersion`,
          key: request.idempotencyKey,
          fingerprint: fingerprintOf({ movespec_id: movespecId }),
        },
        async ({ reservedId }) => toJson(VersionSchema, versionMessage(await run(reservedId))),
      );
      return fromJson(VersionSchema, outcome.value);
    },

    async listVersions(request: Called<ListVersionsRequest>): Promise<ListVersionsResponse> {
      const page = checkPage(request.limit, request.offset);
      const { doc } = await findVisible(deps.movespecs, request.movespecId, request.caller);
      const total = await deps.versions.count(doc._id);
      const items =
        page.offset >= total ? [] : await deps.versions.list(doc._id, page.limit, page.offset);
      return create(ListVersionsResponseSchema, {
        items: items.map(versionMessage),
        total,
        hasMore: page.offset + items.length < total,
      });
    },

    async getVersion(request: Called<GetVersionRequest>): Promise<Version> {
      const { doc } = await findVisible(deps.movespecs, request.movespecId, request.caller);
      if (!isUuid(request.movespecVersionId)) throw versionNotFound(request.movespecVersionId);
      const version = await deps.versions.findById(request.movespecVersionId);
      if (!version || version.movespec_id !== doc._id)
        throw versionNotFound(request.movespecVersionId);
      return versionMessage(version);
    },

    async releaseVersion(request: Called<ReleaseVersionRequest>): Promise<MoveSpec> {
      const existing = await findOwned(deps.movespecs, request.movespecId, request.caller);
      assertNotArchived(existing);
      if (!isUuid(request.movespecVersionId)) throw versionNotFound(request.movespecVersionId);
      const version = await deps.versions.findById(request.movespecVersionId);
      if (!version || version.movespec_id !== existing._id) {
        throw versionNotFound(request.movespecVersionId);
      }
      if (request.caller) await deps.projects.assertWritable(request.caller);
      const updated = await deps.movespecs.updateMetadata(
        existing._id,
        { archived_at: { $exists: false } },
        {
          current_released_version_id: version._id,
          updated_at: deps.now(),
          updated_by: request.caller?.credentialId ?? "",
        },
      );
      if (!updated) throw await refusalAfterFailedWrite(deps.movespecs, existing._id);
      deps.relay.nudge();
      return moveSpecMessage(updated);
    },

    async getReleasedSource(
      request: Called<GetReleasedSourceRequest>,
    ): Promise<GetReleasedSourceResponse> {
      const { doc } = await findVisible(deps.movespecs, request.movespecId, request.caller);
      const releasedId = doc.current_released_version_id;
      const version = releasedId ? await deps.versions.findById(releasedId) : null;
      if (!version) {
        throw serviceError(
          Code.FailedPrecondition,
          AuthoringReason.noReleasedVersion,
          "this MoveSpec has no released version",
          { movespec_id: doc._id },
        );
      }
      return create(GetReleasedSourceResponseSchema, {
        movespecId: doc._id,
        movespecVersionId: version._id,
        versionNumber: version.version_number,
        yamlSource: version.yaml_source,
      });
    },

    async resolveVersion(request: Called<ResolveVersionRequest>): Promise<ResolveVersionResponse> {
      const movespecId = request.movespecId || undefined;
      const versionId = request.movespecVersionId || undefined;
      if (!movespecId && !versionId) {
        throw serviceError(
          Code.InvalidArgument,
          Reason.fieldRequired,
          "movespec_id or movespec_version_id is required",
          { field: "movespec_id" },
        );
      }
      const named = movespecId
        ? (await findVisible(deps.movespecs, movespecId, request.caller)).doc
        : undefined;
      let version: VersionDoc;
      let owner = named;
      if (versionId) {
        const found = await findVisibleVersion(versionId, request.caller);
        if (named && found.version.movespec_id !== named._id) {
          throw serviceError(
            Code.InvalidArgument,
            AuthoringReason.versionNotInMovespec,
            "movespec_version_id is not a version of movespec_id",
            { movespec_id: named._id, movespec_version_id: versionId },
          );
        }
        version = found.version;
        owner = found.owner;
      } else {
        const releasedId = named?.current_released_version_id;
        const released = releasedId ? await deps.versions.findById(releasedId) : null;
        if (!released || !named) {
          throw serviceError(
            Code.FailedPrecondition,
            AuthoringReason.noReleasedVersion,
            "this MoveSpec has no released version",
            { movespec_id: movespecId ?? "" },
          );
        }
        version = released;
      }
      if (!owner) throw versionNotFound(version._id);
      return create(ResolveVersionResponseSchema, {
        movespecVersionId: version._id,
        movespecId: version.movespec_id,
        versionNumber: version.version_number,
        yamlSource: version.yaml_source,
        contentHash: version.content_hash,
        projectId: owner.project_id,
        organizationId: owner.organization_id,
      });
    },
  };
}

export type VersionOperations = ReturnType<typeof createVersionOperations>;
