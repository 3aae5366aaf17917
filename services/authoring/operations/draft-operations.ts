import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  type Draft,
  type GetDraftRequest,
  type ReplaceDraftRequest,
  type ValidateDraftRequest,
  type ValidateDraftResponse,
  ValidateDraftResponseSchema,
} from "@movement-detection/proto/authoring/v1";
import { AuthoringReason, Code, serviceError } from "@movement-detection/shared/errors";
import type { Called } from "@movement-detection/shared/security";
import { checkYamlSize } from "../domain/limits.js";
import { loadMoveSpec } from "../domain/movespec-loader.js";
import { draftMessage, issueMessage } from "../to-proto.js";
import type { AuthoringDeps } from "./deps.js";
import {
  archivedRefusal,
  assertNotArchived,
  findOwned,
  moveSpecArchived,
  moveSpecNotFound,
} from "./visibility-checks.js";

/** The single mutable draft of each MoveSpec: read, replace whole, validate. */
export function createDraftOperations(deps: AuthoringDeps) {
  return {
    async getDraft(request: Called<GetDraftRequest>): Promise<Draft> {
      const doc = await findOwned(deps.movespecs, request.movespecId, request.caller, true);
      return draftMessage(doc);
    },

    async replaceDraft(request: Called<ReplaceDraftRequest>): Promise<Draft> {
      checkYamlSize(request.yamlSource);
      const existing = await findOwned(deps.movespecs, request.movespecId, request.caller);
      assertNotArchived(existing);
      if (request.caller) await deps.projects.assertWritable(request.caller);
      const outcome = await deps.movespecs.replaceDraft(
        request.movespecId,
        {
          yamlSource: request.yamlSource,
          updated_at: deps.now(),
          updated_by: request.caller?.credentialId ?? "",
        },
        request.ifRevision,
      );
      switch (outcome.kind) {
        case "replaced":
          return draftMessage(outcome.doc);
        case "missing":
          throw moveSpecNotFound(request.movespecId);
        case "archived":
          throw outcome.doc ? archivedRefusal(outcome.doc) : moveSpecArchived(request.movespecId);
        case "revision_mismatch":
          throw serviceError(
            Code.FailedPrecondition,
            AuthoringReason.etagMismatch,
            "the draft changed since you read it: read it again, then retry",
            { movespec_id: request.movespecId },
          );
      }
    },

    async validateDraft(request: Called<ValidateDraftRequest>): Promise<ValidateDraftResponse> {
      const doc = await findOwned(deps.movespecs, request.movespecId, request.caller, true);
      const result = loadMoveSpec(doc.draft_yaml_source);
      return create(ValidateDraftResponseSchema, {
        ok: result.errors.length === 0,
        targetId: doc.draft.draft_id,
        targetType: "draft",
        validatedAt: timestampFromDate(deps.now()),
        errors: result.errors.map(issueMessage),
        warnings: result.warnings.map(issueMessage),
      });
    },
  };
}

export type DraftOperations = ReturnType<typeof createDraftOperations>;
