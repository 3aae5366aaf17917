import {
  createEngine,
  type Engine,
  restoreEngine,
  type TopologyName,
} from "@movement-detection/movespec";
import type { Logger } from "@movement-detection/shared/logging";
import type { SessionLimits } from "../config.js";
import type { SessionDocument } from "../domain/session-document.js";
import { finalSummary, summaryEventOf } from "../domain/session-summary.js";
import { type DueOutcome, dueOutcome } from "../domain/session-timeouts.js";
import type { AttachmentLeases } from "../lease/attachment-lease.js";
import { EndReason } from "../reasons.js";
import type { RecordStore } from "../store/record-store.js";
import type { SessionStore, TerminalWrite } from "../store/session-store.js";
import type { SpecCache } from "./spec-cache.js";

/**
 * Ends sessions that no client is streaming to: finalize without an attachment, and the
 * sweeper's timeouts. The engine is restored from the last checkpoint so that the summary in
 * `terminal_outcome` covers every durable frame.
 */
export interface SessionSettlement {
  /** Ends the session now if its state calls for it (see dueOutcome); resolves when written. */
  settle(sessionId: string, options?: SettleOptions): Promise<void>;
  /** `settle` in the background, retried while the store is unavailable. */
  settleLater(sessionId: string, options?: SettleOptions): void;
  stop(): void;
}

export interface SettleOptions {
  /** Leave the session alone while a live replica holds it for a client (AttachmentLeases). */
  readonly yieldToAttachment?: boolean;
}

export interface SessionSettlementOptions {
  readonly store: SessionStore;
  readonly records: RecordStore;
  readonly leases: AttachmentLeases;
  readonly specs: SpecCache;
  readonly limits: Pick<SessionLimits, "idleTimeoutMs" | "summaryMaxBytes">;
  readonly logger: Logger;
  readonly now?: () => number;
}

const RETRY_MS = [0, 100, 250, 500, 1000, 2000, 5000];

export function createSessionSettlement(options: SessionSettlementOptions): SessionSettlement {
  const { store, records, leases, specs, logger } = options;
  const now = options.now ?? Date.now;
  const pending = new Set<NodeJS.Timeout>();
  let stopped = false;

  async function engineOf(session: SessionDocument): Promise<Engine | "unusable" | undefined> {
    const spec = await specs.get(session.movespec_version_id);
    if (!spec) return "unusable";
    try {
      if (session.checkpoint) return restoreEngine(spec, JSON.parse(session.checkpoint.engine));
      if (!session.attached_at && session.status !== "finalizing") return undefined;
      return createEngine(spec, { topology: session.topology as TopologyName | undefined });
    } catch (error) {
      logger.error({ err: error, session_id: session._id }, "checkpoint could not be restored");
      return "unusable";
    }
  }

  /** The summary of what the last checkpoint made durable, with the records stored with it. */
  async function summaryOf(session: SessionDocument, engine: Engine): Promise<string> {
    const stored = await records.list(session._id, session.checkpoint?.record_chunks ?? 0);
    if (stored.missing > 0) {
      logger.error(
        { session_id: session._id, missing_chunks: stored.missing },
        "record chunks missing: the summary lists fewer records than it counts",
      );
    }
    return finalSummary(
      summaryEventOf(engine.finish().events),
      stored.chunks,
      options.limits.summaryMaxBytes,
    ).text;
  }

  function terminalWrite(
    session: SessionDocument,
    outcome: DueOutcome,
    summary: string | undefined,
  ): TerminalWrite {
    const base = {
      ended_at: new Date(now()),
      accepted_frames_total: session.accepted_frames_total,
      last_seq: session.last_seq,
    };
    return outcome.status === "completed"
      ? { ...base, status: "completed", terminal_outcome: summary }
      : {
          ...base,
          status: outcome.status,
          terminal_outcome: summary,
          error_code: outcome.errorCode,
          error_message: outcome.errorMessage,
        };
  }

  async function settle(sessionId: string, settleOptions: SettleOptions = {}): Promise<void> {
    const lease = await leases.acquire(
      sessionId,
      "settle",
      undefined,
      undefined,
      settleOptions.yieldToAttachment,
    );
    if (lease.kind !== "acquired") return;
    const session = lease.session;
    const outcome = dueOutcome(session, new Date(now()), options.limits);
    if (!outcome) {
      // Not due any more (e.g. a client came back): let go.
      await store.clearLease(sessionId, session.lease_epoch);
      return;
    }
    const engine = await engineOf(session);
    const write =
      engine === "unusable"
        ? terminalWrite(
            session,
            {
              status: "failed",
              errorCode: EndReason.checkpointUnusable,
              errorMessage: "the session's last checkpoint could not be restored",
            },
            undefined,
          )
        : terminalWrite(session, outcome, engine && (await summaryOf(session, engine)));
    const written = await store.end(sessionId, session.lease_epoch, write);
    if (written) {
      await records
        .removeAll(sessionId)
        .catch((error) =>
          logger.warn({ err: error, session_id: sessionId }, "stored records not removed"),
        );
    }
    logger.info(
      { session_id: sessionId, status: write.status, error_code: write.error_code, written },
      "session settled",
    );
  }

  return {
    settle,
    settleLater(sessionId, settleOptions) {
      const attempt = (index: number) => {
        if (stopped) return;
        const timer = setTimeout(async () => {
          pending.delete(timer);
          try {
            await settle(sessionId, settleOptions);
          } catch (error) {
            logger.warn(
              { err: (error as Error).message, session_id: sessionId },
              "settling failed",
            );
            if (index + 1 < RETRY_MS.length) attempt(index + 1);
          }
        }, RETRY_MS[index]);
        pending.add(timer);
      };
      attempt(0);
    },
    stop() {
      stopped = true;
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
    },
  };
}
