import type { Engine, PackedFrames } from "@movement-detection/movespec";
import type { Logger } from "@movement-detection/shared/logging";
import type { AdmissionGate } from "@movement-detection/shared/process";
import type { DetectionConfig } from "../config.js";
import type { SessionMode, SessionStatus } from "../domain/session-document.js";
import { StreamWarning } from "../reasons.js";
import type { RecordStore } from "../store/record-store.js";
import type { SessionStore } from "../store/session-store.js";
import { Checkpoints } from "./checkpoints.js";
import { FlowControl, type PauseCause } from "./flow-control.js";
import { FrameIntake, RATE_EXCEEDED } from "./frame-intake.js";
import { Outbox } from "./outbox.js";
import type { ProgressWriter } from "./progress-batch.js";
import type { SentEvent } from "./recent-events.js";
import { RecordLedger } from "./record-ledger.js";
import { ENDINGS, type ReleaseReason, SessionLifecycle } from "./session-lifecycle.js";
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
  /** Called once the session is no longer processed here (its last write is done). */
  readonly onDetached: (session: OwnedSession) => void;
  /** Hands a session to settlement, which completes it (./session-lifecycle.ts says when). */
  readonly settleLater: (sessionId: string) => void;
  /** The replica's turns for heavy steps (a session's end), one step per event-loop turn. */
  readonly turns: TurnQueue;
  /** The replica's session ends, a few at a time (./session-lifecycle.ts says why). */
  readonly ends: AdmissionGate;
  /** The replica's batch of periodic checkpoints (./progress-batch.ts); without it, one write each. */
  readonly progressBatch?: { readonly write: ProgressWriter; readonly waitMs: number };
  readonly now?: () => number;
}

/**
 * One session attached on this replica, under its lease (README.md): what comes in goes to its
 * parts, and what they find comes back here to be acted on. Frame intake (./frame-intake.ts),
 * what the client is told (./outbox.ts), checkpoints and acks (./checkpoints.ts), reading
 * stopped and resumed (./flow-control.ts), and the attachment's life and ways to stop
 * (./session-lifecycle.ts: end, release, abandon).
 */
export class OwnedSession {
  readonly sessionId: string;
  readonly epoch: number;
  private readonly engine: Engine;
  private readonly now: () => number;
  private readonly outbox: Outbox;
  private readonly intake: FrameIntake;
  private readonly checkpoints: Checkpoints;
  private readonly flow: FlowControl;
  private readonly lifecycle: SessionLifecycle;

  constructor(init: OwnedSessionInit, deps: OwnedSessionDeps) {
    const { config, metrics, logger, store } = deps;
    const now = deps.now ?? Date.now;
    const at = now();
    this.sessionId = init.sessionId;
    this.epoch = init.epoch;
    this.engine = init.engine;
    this.now = now;
    this.flow = new FlowControl(init.sink, config.durability);
    this.outbox = new Outbox({
      sink: init.sink,
      metrics,
      mode: init.mode,
      lastEventSeq: init.lastEventSeq,
      engineLastEventSeq: init.engine.lastEventSeq,
      recentEvents: init.recentEvents,
    });
    this.intake = new FrameIntake(init.engine, this.outbox, metrics, config.limits, init.mode);
    this.checkpoints = new Checkpoints({
      sessionId: init.sessionId,
      epoch: init.epoch,
      engine: init.engine,
      ledger: new RecordLedger(deps.records, init.sessionId, init.epoch, init.recordChunks),
      store,
      metrics,
      logger,
      durability: config.durability,
      now,
      at,
      lastActivityAt: () => this.lifecycle.lastActivityAt,
      recentEvents: () => this.outbox.recent(),
      batch: deps.progressBatch,
    });
    this.lifecycle = new SessionLifecycle({
      sessionId: init.sessionId,
      epoch: init.epoch,
      status: init.status,
      expiresAt: init.expiresAt,
      at,
      engine: init.engine,
      outbox: this.outbox,
      checkpoints: this.checkpoints,
      flow: this.flow,
      store,
      records: deps.records,
      limits: config.limits,
      logger,
      turns: deps.turns,
      ends: deps.ends,
      now,
      detached: () => deps.onDetached(this),
      settleLater: deps.settleLater,
    });
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
    return this.lifecycle.isOpen;
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
    this.lifecycle.touch(this.now());
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

  /** The client's `finalize`, the API's finalize (NotifyFinalize), or a checkpoint finding it. */
  finalize(): void {
    void this.lifecycle.end(ENDINGS.completed);
  }

  /** Periodic: limits, idling, and time-based checkpoints of quiet sessions. */
  tick(): void {
    if (!this.lifecycle.isOpen) return;
    const at = this.now();
    const ending = this.lifecycle.deadline(at);
    if (ending) void this.lifecycle.end(ending);
    else if (this.checkpoints.dueAt(at)) void this.checkpoint();
  }

  /**
   * Stops processing at once and lets go of the session: the client is closed (unless it is
   * already gone), progress is checkpointed and the lease released. Idempotent.
   */
  release(reason: ReleaseReason): Promise<void> {
    return this.lifecycle.release(reason);
  }

  /** Stops at once without writing anything (the lease is lost or this replica is fenced). */
  abandon(code: string, message: string, closeCode: number): void {
    this.lifecycle.abandon(code, message, closeCode);
  }

  /** Writes a checkpoint (one at a time); on success the client gets an `ack` for it. */
  checkpoint(): Promise<void> {
    const inFlight = this.checkpoints.inFlight;
    if (inFlight) return inFlight;
    if (!this.lifecycle.isOpen) return Promise.resolve();
    return this.checkpoints.write(this.checkpointWritten);
  }

  private readonly checkpointWritten = (
    status: SessionStatus | undefined,
    acceptedFramesTotal: number,
    lastSeq: number,
  ): void => {
    if (status === undefined) this.lifecycle.leaseLost();
    else if (this.lifecycle.isOpen) {
      this.outbox.ack(acceptedFramesTotal, lastSeq);
      this.flow.acked();
      if (status === "finalizing") this.lifecycle.foundFinalizing();
    }
  };

  /** Frames are looked at only while the session is open and not finalizing (a warning). */
  private takesFrames(): boolean {
    if (!this.lifecycle.isOpen) return false;
    if (this.lifecycle.status !== "finalizing") return true;
    this.outbox.warning(
      StreamWarning.sessionFinalizing,
      "the session is finalizing: frames are ignored",
    );
    return false;
  }

  /** After a message's frames: the rate, the first frame's status, the frame limit, durability. */
  private afterFrames(at: number, accepted: number): void {
    if (accepted === RATE_EXCEEDED) {
      void this.lifecycle.release("rate_limited");
      return;
    }
    if (accepted > 0) this.lifecycle.framesAccepted(at);
    if (this.intake.limitReached) {
      void this.lifecycle.end(ENDINGS.frameLimit);
      return;
    }
    const unacked = this.checkpoints.unacked;
    if (this.checkpoints.dueAfterFrames(at, unacked)) void this.checkpoint();
    this.flow.afterFrames(unacked);
  }
}
