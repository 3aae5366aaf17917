import { type Client, Code } from "@connectrpc/connect";
import type { AuthService } from "@movement-detection/proto/auth/v1";
import { errorInfo, Reason, serviceError } from "@movement-detection/shared/errors";
import type { Logger } from "@movement-detection/shared/logging";
import { type Caller, onBehalfOf } from "@movement-detection/shared/security";
import { projectArchived } from "./visibility-checks.js";

/**
 * Writes to any MoveSpec of an archived project are refused (409 PROJECT_ARCHIVED). The project's
 * state lives in the auth service, so every write asks it (writes are rare; no cache, so an
 * archive takes effect at once), on behalf of the user: auth answers only for the project that
 * user's token is bound to.
 */
export interface ProjectGuard {
  assertWritable(caller: Caller): Promise<void>;
  /**
   * After a MoveSpec was created: asks again in the background. A project archived while the
   * creation ran had its MoveSpecs archived before the new one existed; this archives it too.
   */
  recheckAfterCreate(caller: Caller): void;
}

export function createProjectGuard(
  auth: Client<typeof AuthService>,
  logger: Logger,
  /** Told (in the background) when a write finds its project archived. */
  onArchived?: (projectId: string, archivedAt: Date) => Promise<void>,
): ProjectGuard {
  let warnedUnimplemented = false;
  const guard: ProjectGuard = {
    recheckAfterCreate(caller) {
      // The refusal is for the caller of a write; here only its side effect (onArchived) counts.
      guard.assertWritable(caller).catch(() => undefined);
    },
    async assertWritable(caller) {
      let archivedAt: string | undefined;
      try {
        const { project } = await auth.getProject(
          { projectId: caller.projectId },
          onBehalfOf(caller),
        );
        archivedAt = project?.archivedAt;
      } catch (error) {
        const info = errorInfo(error);
        if (info.code === Code.Unimplemented) {
          // The auth service predates GetProject: nothing can be archived there yet.
          if (!warnedUnimplemented)
            logger.warn(
              "auth.v1.AuthService/GetProject is not implemented; project archive not checked",
            );
          warnedUnimplemented = true;
          return;
        }
        if (info.code === Code.NotFound) {
          throw serviceError(Code.NotFound, Reason.projectNotFound, "project not found", {
            project_id: caller.projectId,
          });
        }
        throw serviceError(
          Code.Unavailable,
          Reason.dependencyUnavailable,
          "the auth service is unavailable",
        );
      }
      if (archivedAt) {
        onArchived?.(caller.projectId, new Date(archivedAt)).catch((error) =>
          logger.warn(
            { err: error, project_id: caller.projectId },
            "the MoveSpecs of an archived project were not archived",
          ),
        );
        throw projectArchived(caller.projectId);
      }
    },
  };
  return guard;
}
