import type { Logger } from "@movement-detection/shared/logging";
import { isTerminal, type SessionDocument } from "../domain/session-document.js";
import type { SessionStore } from "../store/session-store.js";
import type { Attachments } from "../stream/attachments.js";
import type { PeerClients } from "./peer-clients.js";
import type { ReplicaPresence } from "./replica-presence.js";

export type LeaseOutcome =
  | { readonly kind: "acquired"; readonly session: SessionDocument }
  | { readonly kind: "terminal"; readonly session: SessionDocument }
  | { readonly kind: "missing" }
  /** The holder is alive but did not let go in time (or this replica is not alive itself). */
  | { readonly kind: "busy" };

/**
 * The attachment lease: at most one replica processes a session's frames at any moment.
 *
 * The lease is a field of the session document, `{owner, owner_url, purpose}`, and every lease
 * change increments `lease_epoch`, which every write made under the lease is conditioned on
 * (fencing). A lease is valid while its owner replica's presence is (replica-presence.ts).
 * Taking over follows one rule, the newer attachment wins:
 *   - held by this replica: the local attachment is closed (4409), checkpointed and released;
 *   - held by a live replica: it is asked to do the same (ReleaseAttachment);
 *   - held by a dead replica (presence expired): the lease is simply taken, from the epoch read.
 * Each step re-reads the document and takes the lease with a compare-and-set on the epoch, so
 * concurrent attachers serialise and nobody can write with a stale epoch.
 */
export interface AttachmentLeases {
  acquire(
    sessionId: string,
    purpose: string,
    also?: (session: SessionDocument) => Partial<SessionDocument>,
    /**
     * The session as the caller just read it: the first attempt starts from it instead of reading
     * again (a stale copy only fails the compare-and-set on the epoch, and the next attempt reads).
     */
    justRead?: SessionDocument,
    /**
     * Busy, instead of taking it over, while a live replica holds the session for a client's
     * attachment: a settle that would end a finalizing session leaves that to the attachment
     * (whose client must get the summary and end, not 4409).
     */
    yieldToAttachment?: boolean,
  ): Promise<LeaseOutcome>;
}

export interface AttachmentLeasesOptions {
  readonly store: SessionStore;
  readonly presence: ReplicaPresence;
  readonly attachments: Attachments;
  readonly peers: PeerClients;
  readonly logger: Logger;
  /** How long to wait for a live holder to let go (at least the replica TTL). */
  readonly waitMs: number;
  readonly rpcTimeoutMs: number;
}

const RETRY_MS = 50;

export function createAttachmentLeases(options: AttachmentLeasesOptions): AttachmentLeases {
  const { store, presence, attachments, peers, logger } = options;

  /** Makes the current holder let go: it `released` (the epoch moved on), is `dead`, or is `unreachable`. */
  async function dislodge(session: SessionDocument): Promise<"released" | "dead" | "unreachable"> {
    const holder = session.lease;
    if (!holder) return "released";
    if (holder.owner === presence.id) {
      await attachments.release(session._id, session.lease_epoch);
      return "released";
    }
    if (!(await presence.isOtherAlive(holder.owner, holder.owner_url))) return "dead";
    if (!holder.owner_url) return "unreachable";
    try {
      await peers
        .of(holder.owner_url)
        .releaseAttachment(
          { sessionId: session._id, leaseEpoch: BigInt(session.lease_epoch) },
          { timeoutMs: options.rpcTimeoutMs },
        );
      return "released";
    } catch (error) {
      logger.warn(
        { err: (error as Error).message, session_id: session._id, holder: holder.owner },
        "lease holder did not answer ReleaseAttachment",
      );
      return "unreachable";
    }
  }

  /**
   * Whether a live replica holds the session for a client. Ours counts even with no stream
   * registered yet: an attach registers its stream only once its lease write has answered.
   */
  async function heldForClient(session: SessionDocument): Promise<boolean> {
    const holder = session.lease;
    if (holder?.purpose !== "attach") return false;
    if (holder.owner === presence.id) return true;
    return presence.isOtherAlive(holder.owner, holder.owner_url);
  }

  return {
    async acquire(sessionId, purpose, also, justRead, yieldToAttachment = false) {
      const deadline = Date.now() + options.waitMs;
      for (let attempt = 0; ; attempt += 1) {
        if (attempt > 0) {
          if (Date.now() > deadline) return { kind: "busy" };
          await sleep(attempt === 1 ? 0 : RETRY_MS * Math.min(attempt - 1, 10));
        }
        if (!presence.isAlive()) return { kind: "busy" };
        const session = attempt === 0 && justRead ? justRead : await store.find(sessionId);
        if (!session) return { kind: "missing" };
        if (isTerminal(session.status)) return { kind: "terminal", session };
        if (session.lease !== null) {
          if (yieldToAttachment && (await heldForClient(session))) return { kind: "busy" };
          const holder = await dislodge(session);
          // Released: read again (someone else may be quicker); unreachable: wait for it to die.
          if (holder !== "dead") continue;
        }
        const taken = await store.takeLease(
          sessionId,
          session.lease_epoch,
          { owner: presence.id, owner_url: presence.url, purpose, acquired_at: new Date() },
          also?.(session),
        );
        if (taken) return { kind: "acquired", session: taken };
      }
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
