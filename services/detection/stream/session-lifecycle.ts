import type { Engine, SessionSummary } from "@movement-detection/movespec";
import type { Logger } from "@movement-detection/shared/logging";
import type { AdmissionGate } from "@movement-detection/shared/process";
import type { SessionLimits } from "../config.js";
import type { SessionStatus } from "../domain/session-document.js";
import { finalSummary, summaryEventOf } from "../domain/session-summary.js";
import { CloseCode, EndReason, StreamError } from "../reasons.js";
import type { RecordStore } from "../store/record-store.js";
import type { SessionStore, TerminalWrite } from "../store/session-store.js";
import type { Checkpoints } from "./checkpoints.js";
import type { FlowControl } from "./flow-control.js";
import type { Outbox } from "./outbox.js";
import type { TurnQueue } from "./turn-queue.js";

/** How a session ends here: its terminal status, the `error` before `end`, the close code. */
export interface Ending {
  readonly status: TerminalWrite["status"];
  readonly code?: string;
  readonly message?: string;
  readonly closeCode: number;
}

export const ENDINGS = {
  /** Finalized: by its client, through the API, or found finalizing by a checkpoint. */
  completed: { status: "completed", closeCode: CloseCode.normal },
  frameLimit: {
    status: "failed",
    code: EndReason.frameLimit,
    message: "the session reached its frame limit",
    closeCode: CloseCode.policy,
  },
  maxDuration: {
    status: "failed",
    code: EndReason.maxDuration,
    message: "the session reached its maximum duration",
    closeCode: CloseCode.policy,
  },
  idleTimeout: {
    status: "cancelled",
    code: EndReason.idleTimeout,
    message: "no message for longer than the idle timeout",
    closeCode: CloseCode.normal,
  },
} as const satisfies Record<string, Ending>;

/** Why an attachment lets go of its session without ending it. */
export type ReleaseReason = "client_gone" | "replaced" | "rate_limited" | "shutdown";

/**
 * Where an attachment is. Frames, ticks and checkpoints are taken only while `open`; `ending`
 * and `releasing` hold the write under way, which a release waits for; `detached` is the end.
 */
type Stage =
  | { readonly name: "open" }
  /**
   * Writing the terminal state (`ending`: the lease goes with it), or the attachment's last
   * checkpoint (`releasing`: the lease released with it).
   */
  | Writing
  /** No longer processed here. */
  | { readonly name: "detached" };

interface Writing {
  readonly name: "ending" | "releasing";
  done: Promise<void>;
}

const OPEN: Stage = { name: "open" };
const DETACHED: Stage = { name: "detached" };
const DONE = Promise.resolve();

const LEASE_LOST = "another attachment of this session took over";

/** A session is created at epoch 0; the first lease taken on it moves it to 1. */
const FIRST_LEASE_EPOCH = 1;

/**
 * Whether records may be stored for the session: the engine's totals cover every repetition and
 * hold since the session began (restored from checkpoints), taken out of it or not.
 */
function mayHaveStoredRecords(summary: SessionSummary): boolean {
  return (
    summary.count > 0 ||
    summary.partials > 0 ||
    summary.longest_hold > 0 ||
    summary.holds.length > 0
  );
}

export interface LifecycleInit {
  readonly sessionId: string;
  readonly epoch: number;
  readonly status: SessionStatus;
  readonly expiresAt: Date;
  /** When the attachment began. */
  readonly at: number;
  readonly engine: Engine;
  readonly outbox: Outbox;
  readonly checkpoints: Checkpoints;
  readonly flow: FlowControl;
  readonly store: SessionStore;
  readonly records: RecordStore;
  readonly limits: Pick<
    SessionLimits,
    "idleTimeoutMs" | "summaryMaxBytes" | "liveMaxFps" | "liveBurstFrames"
  >;
  readonly logger: Logger;
  readonly turns: TurnQueue;
  /**
   * The replica's session ends, run one at a time: 30 sessions ending at once (a class, a round
   * of churn) would otherwise saturate the replica and the store together, and every other
   * session's frames would be late (bench/detection/README.md, "Admission paced"). `turns` is
   * still needed: an end's summary is built and sent in turns of their own so that socket reads
   * run between them, and `DETECTION_SESSION_ENDS_IN_FLIGHT` may let several ends run at once.
   */
  readonly ends: AdmissionGate;
  readonly now: () => number;
  /** The attachment is no longer processed here (called once). */
  readonly detached: () => void;
  /** Hands the session to settlement (it completes a session no attachment will). */
  readonly settleLater: (sessionId: string) => void;
}

/**
 * An attachment's life, from open to detached, in one field (`stage`), with the session's
 * status as this attachment knows it and its deadlines. It stops in one of three ways:
 *
 * - `end`: the session is over. Its last events and summary go to the client, the terminal
 *   state is written under the lease, then `end` and the close.
 * - `release`: the attachment lets go and the session goes on (its client left, a newer
 *   attachment took over, the replica shuts down, the client passed its rate). Its progress is
 *   written with the lease released.
 * - `abandon`: the lease is lost or the replica fenced. Nothing is written.
 */
export class SessionLifecycle {
  /** The session's status as this attachment last wrote or found it. */
  status: SessionStatus;
  private stage: Stage = OPEN;
  private lastActivity: number;
  /** The first frame's time, once this attachment accepted one (see TerminalWrite.started_at). */
  private startedAt: Date | undefined;
  private readonly expiresAt: number;
  private readonly init: LifecycleInit;

  constructor(init: LifecycleInit) {
    this.init = init;
    this.status = init.status;
    this.expiresAt = init.expiresAt.getTime();
    this.lastActivity = init.at;
  }

  get isOpen(): boolean {
    return this.stage.name === "open";
  }

  /** The client's last message. */
  get lastActivityAt(): number {
    return this.lastActivity;
  }

  /** Any message from the client keeps the session from idling out. */
  touch(at: number): void {
    this.lastActivity = at;
  }

  /** Frames were accepted at `at`: the first ones make the session `streaming`. */
  framesAccepted(at: number): void {
    if (this.status !== "created") return;
    const { store, sessionId, epoch, logger } = this.init;
    this.status = "streaming";
    this.startedAt = new Date(at);
    store
      .markStreaming(sessionId, epoch, this.startedAt)
      .catch((error) =>
        logger.warn({ err: error, session_id: sessionId }, "streaming status not saved"),
      );
  }

  /** The ending a deadline calls for at `at`, if one passed. */
  deadline(at: number): Ending | undefined {
    if (at >= this.expiresAt) return ENDINGS.maxDuration;
    if (at - this.lastActivity >= this.init.limits.idleTimeoutMs) return ENDINGS.idleTimeout;
    return undefined;
  }

  /** A write found the session finalizing (finalized through the API): it completes here. */
  foundFinalizing(): void {
    if (this.status === "finalizing") return;
    this.status = "finalizing";
    void this.end(ENDINGS.completed);
  }

  end(ending: Ending): Promise<void> {
    if (this.stage.name !== "open") return this.settled();
    this.init.flow.stop();
    return this.enter("ending", () => this.writeEnd(ending));
  }

  /** Idempotent; during the end, waits for it (the lease goes with the terminal write). */
  release(reason: ReleaseReason): Promise<void> {
    if (this.stage.name !== "open") return this.settled();
    this.init.flow.stop();
    const done = this.enter("releasing", () => this.writeRelease());
    const { outbox, limits } = this.init;
    // A client that left is told nothing; the others are told why and closed.
    if (reason === "replaced") {
      outbox.error(StreamError.replaced, LEASE_LOST);
      outbox.close(CloseCode.replaced, "replaced by another attachment");
    } else if (reason === "shutdown") {
      outbox.error(StreamError.serviceRestarting, "the service is restarting: reconnect to resume");
      outbox.close(CloseCode.goingAway, "service restarting");
    } else if (reason === "rate_limited") {
      outbox.error(
        StreamError.rateLimited,
        `live sessions take at most ${limits.liveMaxFps} frames per second (bursts of ${limits.liveBurstFrames}); reconnect to resume`,
      );
      outbox.close(CloseCode.rateLimited, "rate limited");
    }
    return done;
  }

  abandon(code: string, message: string, closeCode: number): void {
    if (this.stage.name !== "open") return;
    this.stage = DETACHED;
    this.init.flow.stop();
    this.init.outbox.closeWithError(code, message, closeCode);
    this.init.detached();
  }

  /** The lease was lost at a checkpoint: a newer attachment holds the session. */
  leaseLost(): void {
    this.abandon(StreamError.leaseLost, LEASE_LOST, CloseCode.replaced);
  }

  /** Enters a writing stage, then starts its write (whoever comes during it finds the stage). */
  private enter(name: Writing["name"], write: () => Promise<void>): Promise<void> {
    const stage: Writing = { name, done: DONE };
    this.stage = stage;
    stage.done = write();
    return stage.done;
  }

  /** The write under way, if any. */
  private settled(): Promise<void> {
    return this.stage.name === "ending" || this.stage.name === "releasing" ? this.stage.done : DONE;
  }

  private async writeRelease(): Promise<void> {
    const { checkpoints, settleLater, logger, sessionId } = this.init;
    try {
      const status = await checkpoints.writeLast();
      if (status === "finalizing") settleLater(sessionId);
    } catch (error) {
      logger.warn({ err: error, session_id: sessionId }, "final checkpoint failed");
    } finally {
      this.stage = DETACHED;
      this.init.detached();
    }
  }

  private async writeEnd(ending: Ending): Promise<void> {
    const { store, records, checkpoints, outbox, engine, turns, logger, sessionId, epoch, now } =
      this.init;
    const leave = await this.init.ends.enter();
    try {
      let finalizeRequestedAt: Date | undefined;
      let finished: ReturnType<Engine["finish"]> | undefined;
      if (ending.status === "completed" && this.status !== "finalizing") {
        finalizeRequestedAt = new Date(now());
        // `finalizing` is the finalize made durable while the end waits for a checkpoint being
        // written or for stored records read back: a replica that dies meanwhile leaves the
        // session to the sweeper, which completes it. With neither to wait for it would last
        // one write: the terminal write goes alone (a crash before it leaves the session as a
        // crash before the finalizing write did), one store write fewer per session.
        if (!checkpoints.inFlight) finished = engine.finish();
        if (!finished || mayHaveStoredRecords(finished.summary)) {
          // Fenced: a replaced attachment leaves the session to the one streaming it (its end,
          // fenced too, then finds the lease lost and says so to its client).
          await store.requestFinalize(sessionId, this.status, finalizeRequestedAt, epoch);
          finalizeRequestedAt = undefined;
        }
        this.status = "finalizing";
      }
      await checkpoints.inFlight;
      const { events } = finished ?? engine.finish();
      const stored = await checkpoints.records();
      if (stored.missing > 0) {
        logger.error(
          { session_id: sessionId, missing_chunks: stored.missing },
          "record chunks missing: the summary lists fewer records than it counts",
        );
      }
      // The summary of a long session is megabytes of JSON: built, then sent and written, each in
      // a turn of the event loop of its own (even when many sessions end at once), so that the
      // frames of other sessions are read in between.
      await turns.next();
      const final = finalSummary(
        summaryEventOf(events),
        stored.records,
        this.init.limits.summaryMaxBytes,
      );
      await turns.next();
      outbox.events(events, undefined, final.text);
      // No checkpoint goes with the terminal state: nothing resumes an ended session, and the
      // engine's snapshot (about 10 KB) would be serialised, written and kept for the retention
      // for nothing; the store removes the last one (SessionStore.end).
      const progress = {
        accepted_frames_total: engine.acceptedFrames,
        last_seq: engine.lastSeq >= 0 ? engine.lastSeq : undefined,
      };
      const written = await store.end(sessionId, epoch, {
        status: ending.status,
        ended_at: new Date(now()),
        started_at: this.startedAt,
        accepted_frames_total: progress.accepted_frames_total,
        last_seq: progress.last_seq,
        terminal_outcome: final.text,
        error_code: ending.code,
        error_message: ending.message,
        finalize_requested_at: finalizeRequestedAt,
      });
      if (!written) {
        outbox.closeWithError(StreamError.leaseLost, LEASE_LOST, CloseCode.replaced);
        return;
      }
      this.status = ending.status;
      if (ending.code) outbox.error(ending.code, ending.message ?? ending.code);
      outbox.end({
        status: ending.status,
        acceptedFramesTotal: progress.accepted_frames_total,
        terminalOutcome: final.text,
        errorCode: ending.code,
        errorMessage: ending.message,
      });
      outbox.close(ending.closeCode, ending.status);
      // The client has its end: what is left (removing stored records) is the store's work, and
      // the next end may start.
      leave?.();
      // The session's first lease (no earlier attachment) and no record taken: no chunk was ever
      // written, so there is nothing to remove (a store write fewer per short session).
      if (epoch === FIRST_LEASE_EPOCH && stored.records.length === 0) return;
      await records
        .removeAll(sessionId)
        .catch((error) =>
          logger.warn(
            { err: error, session_id: sessionId },
            "stored records of an ended session not removed",
          ),
        );
    } catch (error) {
      logger.error({ err: error, session_id: sessionId }, "ending the session failed");
      outbox.closeWithError(
        StreamError.serviceUnavailable,
        "the session could not be saved: reconnect to resume",
        CloseCode.internal,
      );
      this.init.settleLater(sessionId);
    } finally {
      leave?.();
      this.stage = DETACHED;
      this.init.detached();
    }
  }
}
