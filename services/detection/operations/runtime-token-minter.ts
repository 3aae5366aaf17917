import { type Timestamp, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import type { AuthService, MintRuntimeTokenResponse } from "@movement-detection/proto/auth/v1";
import { Code, errorInfo, Reason, serviceError } from "@movement-detection/shared/errors";
import type { Logger } from "@movement-detection/shared/logging";
import { type Caller, onBehalfOf } from "@movement-detection/shared/security";
import type { DetectionConfig } from "../config.js";

export interface MintedToken {
  readonly runtimeToken: string;
  readonly expiresAt: Timestamp | undefined;
}

const projectArchived = (projectId: string) =>
  serviceError(Code.FailedPrecondition, Reason.projectArchived, "the project is archived", {
    project_id: projectId,
  });

/**
 * The runtime token of a new session, minted by the auth service before the session is admitted.
 * It is also the archive check (an archived project opens no session, its writes are refused
 * everywhere): auth refuses the token for an archived or missing project and says so with
 * `project_checked`, so a creation makes one call to auth. An auth service older than that field
 * is asked separately (GetProject, on behalf of the user: it answers only for the token's
 * project), so replicas of either version may run side by side during a rollout.
 */
export function createRuntimeTokenMinter(deps: {
  readonly config: Pick<DetectionConfig, "limits" | "tokens" | "rpcTimeoutMs">;
  readonly auth: Client<typeof AuthService>;
  readonly logger: Logger;
}) {
  const { config, auth, logger } = deps;
  const ttlSeconds = Math.min(
    Math.ceil((config.limits.attachTimeoutMs + config.limits.maxDurationMs) / 1000),
    config.tokens.runtimeTokenMaxTtlSeconds,
  );

  async function assertProjectOpen(caller: Caller): Promise<void> {
    let archived = false;
    try {
      const { project } = await auth.getProject(
        { projectId: caller.projectId },
        { ...onBehalfOf(caller), timeoutMs: config.rpcTimeoutMs },
      );
      archived = project?.archivedAt !== undefined;
    } catch (error) {
      const info = errorInfo(error);
      if (info.code === Code.NotFound || info.code === Code.Unauthenticated) throw error;
      logger[levelFor(info.code)]({ err: error }, "GetProject failed");
      throw serviceError(
        Code.Unavailable,
        Reason.dependencyUnavailable,
        "the project cannot be checked right now",
      );
    }
    if (archived) throw projectArchived(caller.projectId);
  }

  return {
    /** A token for `sessionId` in the caller's project; refused for an archived project. */
    async mint(caller: Caller, sessionId: string): Promise<MintedToken> {
      let minted: MintRuntimeTokenResponse;
      try {
        minted = await auth.mintRuntimeToken(
          {
            sessionId,
            organizationId: caller.organizationId,
            projectId: caller.projectId,
            ttlSeconds,
            credentialId: caller.credentialId,
          },
          { timeoutMs: config.rpcTimeoutMs },
        );
      } catch (error) {
        const info = errorInfo(error);
        if (info.reason === Reason.projectArchived) throw projectArchived(caller.projectId);
        if (info.code === Code.NotFound || info.code === Code.Unauthenticated) throw error;
        logger[levelFor(info.code)](
          { err: error, session_id: sessionId },
          "runtime token not minted",
        );
        throw serviceError(
          Code.Unavailable,
          Reason.dependencyUnavailable,
          "the runtime token could not be minted",
        );
      }
      if (!minted.projectChecked) await assertProjectOpen(caller);
      return {
        runtimeToken: minted.runtimeToken,
        expiresAt: minted.expiresAt ? timestampFromDate(new Date(minted.expiresAt)) : undefined,
      };
    },
  };
}

/** Auth out of reach (its store down, a deadline) is an outage to see, not a bug: a warning. */
function levelFor(code: Code | undefined): "warn" | "error" {
  return code === Code.Unavailable || code === Code.DeadlineExceeded ? "warn" : "error";
}
