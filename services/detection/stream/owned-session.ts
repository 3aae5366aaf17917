import type { Engine, PackedFrames } from "../../../movespec/index.js";
import type { Logger } from "../../shared/logging/logger.js";
import type { DetectionConfig } from "../config.js";
import type { SessionMode, SessionStatus } from "../domain/session-document.js";
import { finalSummary, summaryEventOf } from "../domain/session-summary.js";
import { CloseCode, EndReason, StreamError, StreamWarning } from "../reasons.js";
import type { RecordStore } from "../store/record-store.js";
import type { SessionStore, TerminalWrite } from "../store/session-store.js";
import { Checkpoints } from "./checkpoints.js";
import { FlowControl, type PauseCause } from "./flow-control.js";
import { FrameIntake, RATE_EXCEEDED } from "./frame-intake.js";
import { Outbox } from "./outbox.js";
import type { SentEvent } from "./recent-events.js";
import { RecordLedger } from "./record-ledger.js";
import type { StreamMetrics } from "./stream-metrics.js";
import type { StreamSink } from "./stream-sink.js";
import type { TurnQueue } from "./turn-queue.js";

export interface OwnedSessionInit {
  readonly sessionId: string;
  readonly epoch: number;
  readonly mode: SessionMode;
  readonly status: SessionStatus;
  readonly expiresAt: Date;
  readonly engine: Engine;
  readonly sink: StreamSink;
  /** Events up to this event_seq reached the client before (hello's last_event_seq). */
  readonly lastEventSeq: number | undefined;
  /** The events sent last before the checkpoint the engine was restored from. */
  readonly recentEvents: readonly SentEvent[];
  /** Record chunks counted by the checkpoint the engine was restored from. */
  readonly recordChunks: number;
}

export interface OwnedSessionDeps {
  readonly store: SessionStore;
  readonly records: RecordStore;
  readonly config: Pick<DetectionConfig, "limits" | "durability">;
  readonly logger: Logger;
  readonly metrics: StreamMetrics;
  /** Called once the session is no longer processed here (it may still be writing). */
  readonly onGone: (session: OwnedSession) => void;
  /** Completes a session this replica let go of while it was finalizing. */
  readonly settleLater: (sessionId: string) => void;
  /** The replica's turns for heavy steps (a session's end), one step per event-loop turn. */
  readonly turns: TurnQueue;
  readonly now?: () => number;
}

type State = "open" | "ending" | "gone";

/**
 * One session attached on this replica, under its lease: the engine, the client, checkpoints
 * and acks, flow control, limits and the session's end. Frames are evaluated synchronously as
 * they arrive, so nothing queues in memory: when the engine is slower than the client, the
 * socket is simply read more slowly (TCP pushes back on the client).
 */
export class OwnedSession {
  readonly sessionId: string;
  readonly epoch: number;
  private readonly mode: SessionMode;
  private status: SessionStatus;
  /** The first frame's time, once this attachment accepted one (see TerminalWrite.started_at). */
  private startedAt: Date | undefined;
  private readonly expiresAt: number;
  private readonly engine: Engine;
  private readonly checkpoints: Checkpoints;
  private readonly outbox: Outbox;
  private readonly intake: FrameIntake;
  private readonly now: () => number;
  private state: State = "open";
  private lastActivityAt: number;
  private letGo: Promise<void> | undefined;
  private ending: Promise<void> | undefined;
  private readonly flow: FlowControl;

  constructor(
    init: OwnedSessionInit,
    private readonly deps: OwnedSessionDeps,
  ) {
    this.now = deps.now ?? Date.now;
    this.sessionId = init.sessionId;
    this.epoch = init.epoch;
    this.mode = init.mode;
    this.status = init.status;
    this.expiresAt = init.expiresAt.getTime();
    this.engine = init.engine;
    this.flow = new FlowControl(init.sink, deps.config.durability);
    this.outbox = new Outbox({
      sink: init.sink,
      metrics: deps.metrics,
      mode: init.mode,
      lastEventSeq: init.lastEventSeq,
      engineLastEventSeq: init.engine.lastEventSeq,
      recentEvents: init.recentEvents,
    });
    this.lastActivityAt = this.now();
    this.checkpoints = new Checkpoints({
      sessionId: init.sessionId,
      epoch: init.epoch,
      engine: init.engine,
      ledger: new RecordLedger(deps.records, init.sessionId, init.epoch, init.recordChunks),
      store: deps.store,
      metrics: deps.metrics,
      logger: deps.logger,
      durability: deps.config.durability,
      now: this.now,
      at: this.lastActivityAt,
      lastActivityAt: () => this.lastActivityAt,
      recentEvents: () => this.outbox.recent(),
    });
    this.intake = new FrameIntake(
      init.engine,
      this.outbox,
      deps.metrics,
      deps.config.limits,
      init.mode,
    );
  }

  /**
   * Sends again the events the client has not seen that the checkpoint kept (a client that
   * dropped abruptly may not have read them), or says which ones are gone. Call right after
   * `ready`, before any frame of this attachment.
   */
  resendUnseenEvents(): void {
    this.outbox.resendUnseenEvents(this.engine.lastEventSeq);
  }

  get isOpen(): boolean {
    return this.state === "open";
  }

  get acceptedFramesTotal(): number {
    return this.engine.acceptedFrames;
  }

  get lastSeq(): number {
    return this.engine.lastSeq;
  }

  get pausedCauses(): ReadonlySet<PauseCause> {
    return this.flow.causes;
  }

  get topology(): string {
    return this.engine.topology;
  }

  get keypointCount(): number {
    return this.engine.keypointCount;
  }

  /** Any message from the client keeps the session from idling out. */
  touch(): void {
    this.lastActivityAt = this.now();
  }

  /** A `frame` (one) or `frames` (a batch) message. */
  onFrames(frames: unknown[]): void {
    if (!this.takesFrames()) return;
    // When the frames reached the session: the frame-to-event latency metric starts here.
    const received = performance.now();
    const at = this.now();
    this.afterFrames(at, this.intake.takeJson(frames, at, received));
  }

  /** A binary frames message, its header checked (./binary-frames.ts). */
  onPackedFrames(frames: PackedFrames): void {
    if (!this.takesFrames()) return;
    const received = performance.now();
    const at = this.now();
    this.afterFrames(at, this.intake.takePacked(frames, at, received));
  }

  /** Frames are looked at only while the session is open and not finalizing (a warning). */
  private takesFrames(): boolean {
    if (this.state !== "open") return false;
    if (this.status !== "finalizing") return true;
    this.outbox.warning(
      StreamWarning.sessionFinalizing,
      "the session is finalizing: frames are ignored",
    );
    return false;
  }

  /** After a message's frames: counts, the first frame's status, the frame limit, checkpoints. */
  private afterFrames(at: number, accepted: number): void {
    if (accepted === RATE_EXCEEDED) {
      this.rateLimited();
      return;
    }
    if (accepted > 0 && this.status === "created") {
      this.status = "streaming";
      this.startedAt = new Date(at);
      this.deps.store
        .markStreaming(this.sessionId, this.epoch, this.startedAt)
        .catch((error) =>
          this.deps.logger.warn(
            { err: error, session_id: this.sessionId },
            "streaming status not saved",
          ),
        );
    }
    if (this.intake.limitReached) {
      void this.end(
        "failed",
        EndReason.frameLimit,
        "the session reached its frame limit",
        CloseCode.policy,
      );
      return;
    }
    this.afterInput(at);
  }

  /** The client's `finalize`, the API's finalize (NotifyFinalize), or a checkpoint finding it. */
  finalize(): void {
    if (this.state !== "open") return;
    void this.end("completed");
  }

  /** Periodic: limits, idling, and time-based checkpoints of quiet sessions. */
  tick(): void {
    if (this.state !== "open") return;
    const at = this.now();
    if (at >= this.expiresAt) {
      void this.end(
        "failed",
        EndReason.maxDuration,
        "the session reached its maximum duration",
        CloseCode.policy,
      );
    } else if (at - this.lastActivityAt >= this.deps.config.limits.idleTimeoutMs) {
      void this.end(
        "cancelled",
        EndReason.idleTimeout,
        "no message for longer than the idle timeout",
        CloseCode.normal,
      );
    } else if (this.checkpoints.dueAt(at)) {
      void this.checkpoint();
    }
  }

  /**
   * Stops processing at once and lets go of the session: the client is closed (unless it is
   * already gone), progress is checkpointed and the lease released. Idempotent.
   */
  release(reason: "client_gone" | "replaced" | "rate_limited" | "shutdown"): Promise<void> {
    if (this.letGo) return this.letGo;
    // The end is being written (the lease goes with it), or the session was let go already.
    if (this.state === "ending") return this.ending ?? Promise.resolve();
    if (this.state === "gone") return Promise.resolve();
    this.state = "gone";
    this.flow.stop();
    if (reason === "replaced") {
      this.outbox.error(StreamError.replaced, "another attachment of this session took over");
      this.outbox.close(CloseCode.replaced, "replaced by another attachment");
    } else if (reason === "shutdown") {
      this.outbox.error(
        StreamError.serviceRestarting,
        "the service is restarting: reconnect to resume",
      );
      this.outbox.close(CloseCode.goingAway, "service restarting");
    }
    this.letGo = this.writeAndLetGo();
    return this.letGo;
  }

  /** Stops at once without writing anything (the lease is lost or this replica is fenced). */
  abandon(code: string, message: string, closeCode: number): void {
    if (this.state !== "open") return;
    this.state = "gone";
    this.flow.stop();
    this.outbox.closeWithError(code, message, closeCode);
    this.deps.onGone(this);
  }

  private async writeAndLetGo(): Promise<void> {
    try {
      const status = await this.checkpoints.writeLast();
      if (status === "finalizing") this.deps.settleLater(this.sessionId);
    } catch (error) {
      this.deps.logger.warn({ err: error, session_id: this.sessionId }, "final checkpoint failed");
    } finally {
      this.deps.onGone(this);
    }
  }

  /** Writes a checkpoint (one at a time); on success the client gets an `ack` for it. */
  checkpoint(): Promise<void> {
    const inFlight = this.checkpoints.inFlight;
    if (inFlight) return inFlight;
    if (this.state !== "open") return Promise.resolve();
    return this.checkpoints.write(this.checkpointWritten);
  }

  private readonly checkpointWritten = (
    status: SessionStatus | undefined,
    acceptedFramesTotal: number,
    lastSeq: number,
  ): void => {
    if (status === undefined) {
      this.abandon(
        StreamError.leaseLost,
        "another attachment of this session took over",
        CloseCode.replaced,
      );
      return;
    }
    if (this.state !== "open") return;
    this.outbox.ack(acceptedFramesTotal, lastSeq);
    this.flow.acked();
    if (status === "finalizing" && this.status !== "finalizing") {
      this.status = "finalizing";
      this.finalize();
    }
  };

  private afterInput(at: number): void {
    if (this.checkpoints.dueAfterFrames(at)) void this.checkpoint();
    this.flow.afterFrames(this.checkpoints.unacked);
  }

  private rateLimited(): void {
    const { liveMaxFps, liveBurstFrames } = this.deps.config.limits;
    this.outbox.error(
      StreamError.rateLimited,
      `live sessions take at most ${liveMaxFps} frames per second (bursts of ${liveBurstFrames}); reconnect to resume`,
    );
    this.outbox.close(CloseCode.rateLimited, "rate limited");
    void this.release("rate_limited");
  }

  /**
   * Ends the session here: the engine's last events (with `session.summary`) go to the client,
   * the terminal state is written under the lease, then `end` and the close.
   */
  private end(
    status: TerminalWrite["status"],
    errorCode?: string,
    errorMessageText?: string,
    closeCode: number = CloseCode.normal,
  ): Promise<void> {
    if (this.state !== "open") return this.ending ?? Promise.resolve();
    this.state = "ending";
    this.flow.stop();
    this.ending = this.writeEnd(status, errorCode, errorMessageText, closeCode);
    return this.ending;
  }

  private async writeEnd(
    status: TerminalWrite["status"],
    errorCode: string | undefined,
    errorMessageText: string | undefined,
    closeCode: number,
  ): Promise<void> {
    try {
      if (status === "completed" && this.status !== "finalizing") {
        await this.deps.store.requestFinalize(this.sessionId, this.status, new Date(this.now()));
        this.status = "finalizing";
      }
      await this.checkpoints.inFlight;
      const { events } = this.engine.finish();
      const stored = await this.checkpoints.records();
      if (stored.missing > 0) {
        this.deps.logger.error(
          { session_id: this.sessionId, missing_chunks: stored.missing },
          "record chunks missing: the summary lists fewer records than it counts",
        );
      }
      // The summary of a long session is megabytes of JSON: built, then sent and written, each in
      // a turn of the event loop of its own (even when many sessions end at once), so that the
      // frames of other sessions are read in between.
      await this.deps.turns.next();
      const final = finalSummary(
        summaryEventOf(events),
        stored.records,
        this.deps.config.limits.summaryMaxBytes,
      );
      await this.deps.turns.next();
      this.outbox.events(events, undefined, final.text);
      const outcome = final.text;
      const progress = this.checkpoints.endState();
      const written = await this.deps.store.end(this.sessionId, this.epoch, {
        status,
        ended_at: new Date(this.now()),
        started_at: this.startedAt,
        accepted_frames_total: progress.accepted_frames_total,
        last_seq: progress.last_seq,
        terminal_outcome: outcome,
        error_code: errorCode,
        error_message: errorMessageText,
        checkpoint: progress.checkpoint,
      });
      if (!written) {
        this.outbox.closeWithError(
          StreamError.leaseLost,
          "another attachment of this session took over",
          CloseCode.replaced,
        );
        return;
      }
      this.status = status;
      if (errorCode) this.outbox.error(errorCode, errorMessageText ?? errorCode);
      this.outbox.end({
        status,
        acceptedFramesTotal: progress.accepted_frames_total,
        terminalOutcome: outcome,
        errorCode,
        errorMessage: errorMessageText,
      });
      this.outbox.close(closeCode, status);
      await this.deps.records
        .removeAll(this.sessionId)
        .catch((error) =>
          this.deps.logger.warn(
            { err: error, session_id: this.sessionId },
            "stored records of an ended session not removed",
          ),
        );
    } catch (error) {
      this.deps.logger.error(
        { err: error, session_id: this.sessionId },
        "ending the session failed",
      );
      this.outbox.closeWithError(
        StreamError.serviceUnavailable,
        "the session could not be saved: reconnect to resume",
        CloseCode.internal,
      );
      this.deps.settleLater(this.sessionId);
    } finally {
      this.state = "gone";
      this.deps.onGone(this);
    }
  }
}
