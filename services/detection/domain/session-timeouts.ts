import type { SessionLimits } from "../config.js";
import { EndReason } from "../reasons.js";
import type { SessionDocument } from "./session-document.js";

/** How a session nobody is streaming to should end now, if it should. */
export type DueOutcome =
  | { readonly status: "completed" }
  | {
      readonly status: "failed" | "cancelled";
      readonly errorCode: string;
      readonly errorMessage: string;
    };

/**
 * The lifecycle rules for a session with no live attachment (contract, "Detection sessions"):
 * finalizing completes; past the maximum duration fails; never attached within the attach
 * timeout, or idle past the idle timeout, is cancelled. Pure: the sweeper and finalize use it.
 */
export function dueOutcome(
  doc: Pick<
    SessionDocument,
    "status" | "expires_at" | "attached_at" | "attach_deadline" | "last_activity_at"
  >,
  now: Date,
  limits: Pick<SessionLimits, "idleTimeoutMs">,
): DueOutcome | undefined {
  if (doc.status === "finalizing") return { status: "completed" };
  if (doc.status !== "created" && doc.status !== "streaming") return undefined;
  const at = now.getTime();
  if (doc.expires_at.getTime() <= at) {
    return {
      status: "failed",
      errorCode: EndReason.maxDuration,
      errorMessage: "the session reached its maximum duration",
    };
  }
  if (!doc.attached_at) {
    return doc.attach_deadline.getTime() <= at
      ? {
          status: "cancelled",
          errorCode: EndReason.attachTimeout,
          errorMessage: "no client attached to the stream within the attach timeout",
        }
      : undefined;
  }
  return doc.last_activity_at.getTime() + limits.idleTimeoutMs <= at
    ? {
        status: "cancelled",
        errorCode: EndReason.idleTimeout,
        errorMessage: "the stream was idle for longer than the idle timeout",
      }
    : undefined;
}
