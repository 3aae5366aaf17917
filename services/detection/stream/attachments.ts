import type { Logger } from "@movement-detection/shared/logging";
import { CloseCode, StreamError } from "../reasons.js";
import type { SessionStore } from "../store/session-store.js";
import type { LiveProgress } from "../to-proto.js";
import type { OwnedSession } from "./owned-session.js";

/**
 * The sessions attached on this replica, by id: what the replica-to-replica RPCs act on, and one
 * timer for all of them (limits, idling, checkpoints of quiet sessions).
 */
export interface Attachments {
  add(session: OwnedSession): void;
  /** Forgets `session` (only if it is still the one registered). */
  remove(session: OwnedSession): void;
  readonly size: number;
  /** How many attached streams are paused, by cause (for metrics). */
  pausedCounts(): Record<"unacked" | "outbound", number>;
  /**
   * Gives up the lease held at `epoch`: closes the local attachment with 4409 and checkpoints,
   * or clears a lease no local attachment uses. Resolves once the lease is free.
   */
  release(sessionId: string, epoch: number): Promise<void>;
  progress(sessionId: string): LiveProgress | undefined;
  /** The session was finalized through the API: true if it is attached here and will complete. */
  notifyFinalize(sessionId: string): boolean;
  /** Stops every session without writing (this replica's presence lapsed). */
  abandonAll(): void;
  /** Graceful shutdown: every client is told to reconnect, every session checkpointed. */
  releaseAll(): Promise<void>;
  start(tickMs: number): void;
  stop(): void;
}

export function createAttachments(store: SessionStore, logger: Logger): Attachments {
  const sessions = new Map<string, OwnedSession>();
  let timer: NodeJS.Timeout | undefined;

  return {
    add(session) {
      sessions.set(session.sessionId, session);
    },
    remove(session) {
      if (sessions.get(session.sessionId) === session) sessions.delete(session.sessionId);
    },
    get size() {
      return sessions.size;
    },
    pausedCounts() {
      const counts = { unacked: 0, outbound: 0 };
      for (const session of sessions.values()) {
        for (const cause of session.pausedCauses) counts[cause] += 1;
      }
      return counts;
    },
    async release(sessionId, epoch) {
      const session = sessions.get(sessionId);
      if (session && session.epoch === epoch) {
        logger.info({ session_id: sessionId, lease_epoch: epoch }, "attachment replaced");
        await session.release("replaced");
        return;
      }
      if (session) return; // the lease moved on already
      await store.clearLease(sessionId, epoch);
    },
    progress(sessionId) {
      const session = sessions.get(sessionId);
      if (!session?.isOpen) return undefined;
      return { acceptedFramesTotal: session.acceptedFramesTotal, lastSeq: session.lastSeq };
    },
    notifyFinalize(sessionId) {
      const session = sessions.get(sessionId);
      if (!session?.isOpen) return false;
      session.finalize();
      return true;
    },
    abandonAll() {
      for (const session of [...sessions.values()]) {
        session.abandon(
          StreamError.serviceUnavailable,
          "this replica lost contact with the session store: reconnect to resume",
          CloseCode.internal,
        );
      }
    },
    async releaseAll() {
      await Promise.all([...sessions.values()].map((session) => session.release("shutdown")));
    },
    start(tickMs) {
      timer = setInterval(() => {
        for (const session of sessions.values()) session.tick();
      }, tickMs);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
