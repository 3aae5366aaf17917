import { Code, serviceError } from "@movement-detection/shared/errors";
import { isUuid } from "@movement-detection/shared/ids";
import type { TokenSettings } from "@movement-detection/shared/tokens";
import { AuthReason, Reason } from "../reasons.js";
import type { TokenSigner } from "../signing/token-signer.js";
import type { CredentialRecord } from "../store/credentials-store.js";
import type { ProjectRecord } from "../store/projects-store.js";

export interface RuntimeTokenRequest {
  readonly sessionId: string;
  readonly organizationId: string;
  readonly projectId: string;
  /** 0: the configured default lifetime. */
  readonly ttlSeconds: number;
  /** The credential behind the caller's access token ("": none to check). */
  readonly credentialId?: string;
}

/**
 * `MintRuntimeToken`: the detection service asks for a token that lets one client stream to one
 * session. Ids must be UUIDs and the lifetime at most the configured maximum. The project must
 * exist in that organization and be open: an archived project opens no session, and detection
 * asks before it admits one, so this answer is its archive check (one internal call per session
 * creation instead of a separate GetProject). With the caller's credential, a revoked one is
 * refused (UNAUTHENTICATED TOKEN_INVALID).
 */
export function createRuntimeTokens(deps: {
  signer: TokenSigner;
  settings: TokenSettings;
  /**
   * The project by id, possibly as this replica read it a moment ago (recent-projects.ts); throws
   * NOT_FOUND `PROJECT_NOT_FOUND` when there is none.
   */
  project: (id: string) => Promise<ProjectRecord>;
  /** The credential by id, or null. */
  credential: (id: string) => Promise<CredentialRecord | null>;
}) {
  return {
    async mint(request: RuntimeTokenRequest): Promise<{ token: string; expiresAt: Date }> {
      for (const [field, value] of [
        ["session_id", request.sessionId],
        ["organization_id", request.organizationId],
        ["project_id", request.projectId],
      ] as const) {
        if (!isUuid(value)) {
          throw serviceError(Code.InvalidArgument, Reason.fieldInvalid, `${field} must be a UUID`, {
            field,
          });
        }
      }
      const max = deps.settings.runtimeTokenMaxTtlSeconds;
      if (request.ttlSeconds > max) {
        throw serviceError(
          Code.InvalidArgument,
          Reason.fieldInvalid,
          `ttl_seconds must be at most ${max}`,
          { field: "ttl_seconds", max },
        );
      }
      const credentialId = request.credentialId ?? "";
      if (credentialId !== "" && !isUuid(credentialId)) {
        throw serviceError(
          Code.InvalidArgument,
          Reason.fieldInvalid,
          "credential_id must be a UUID",
          {
            field: "credential_id",
          },
        );
      }
      // Both at once: one store round trip's time, not two.
      const [project, credential] = await Promise.all([
        deps.project(request.projectId),
        credentialId === "" ? undefined : deps.credential(credentialId),
      ]);
      // An access token verifies until it expires (no lookup per request), but a revoked
      // credential must not open sessions whose runtime tokens would outlive it by hours.
      if (
        credential !== undefined &&
        (!credential || credential.revoked_at || credential.project_id !== request.projectId)
      ) {
        throw serviceError(
          Code.Unauthenticated,
          Reason.tokenInvalid,
          "the access token's credential is revoked",
        );
      }
      if (project.organization_id !== request.organizationId) {
        throw serviceError(Code.NotFound, AuthReason.projectNotFound, "project not found", {
          project_id: request.projectId,
        });
      }
      if (project.archived_at) {
        throw serviceError(
          Code.FailedPrecondition,
          AuthReason.projectArchived,
          "the project is archived",
          { project_id: request.projectId },
        );
      }
      const signed = await deps.signer.signRuntimeToken({
        sessionId: request.sessionId,
        organizationId: request.organizationId,
        projectId: request.projectId,
        ttlSeconds: request.ttlSeconds || deps.settings.runtimeTokenTtlSeconds,
      });
      return { token: signed.token, expiresAt: new Date(signed.expiresAt * 1000) };
    },
  };
}

export type RuntimeTokens = ReturnType<typeof createRuntimeTokens>;
