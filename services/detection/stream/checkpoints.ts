import type { Engine } from "@movement-detection/movespec";
import type { Logger } from "@movement-detection/shared/logging";
import type { DurabilitySettings } from "../config.js";
import type { SessionStatus } from "../domain/session-document.js";
import type { ProgressWrite, SessionStore } from "../store/session-store.js";
import type { ProgressWriter } from "./progress-batch.js";
import type { SentEvent } from "./recent-events.js";
import type { RecordLedger } from "./record-ledger.js";
import type { StreamMetrics } from "./stream-metrics.js";

export interface CheckpointsInit {
  readonly sessionId: string;
  readonly epoch: number;
  readonly engine: Engine;
  readonly ledger: RecordLedger;
  readonly store: SessionStore;
  readonly metrics: StreamMetrics;
  readonly logger: Logger;
  readonly durability: Pick<DurabilitySettings, "checkpointIntervalMs" | "checkpointMaxFrames">;
  readonly now: () => number;
  /** When the attachment began. */
  readonly at: number;
  /** The client's last message (written with each checkpoint: the sweeper's idle clock). */
  readonly lastActivityAt: () => number;
  /** The events sent last (./recent-events.ts), kept with each checkpoint. */
  readonly recentEvents: () => SentEvent[];
  /**
   * Writes the periodic checkpoints with other sessions' (./progress-batch.ts), waiting up to
   * `waitMs` for them; without it each is written alone at once.
   */
  readonly batch?: { readonly write: ProgressWriter; readonly waitMs: number };
}

/**
 * What the checkpoint's write found: the session's status, or undefined if the lease is lost
 * (a newer attachment fenced the write); with the counts it made durable.
 */
export type CheckpointWritten = (
  status: SessionStatus | undefined,
  acceptedFramesTotal: number,
  lastSeq: number,
) => void;

/**
 * An attached session's durable progress: the engine's snapshot and counts under the lease, the
 * records taken out of the engine written before the checkpoint that counts them (the ledger),
 * one write at a time, when enough frames or time call for one.
 */
export class Checkpoints {
  private readonly init: CheckpointsInit;
  private durableAccepted: number;
  private lastAt: number;
  private writing: Promise<void> | undefined;
  /**
   * The interval between two checkpoints' snapshots: shorter than the configured one by what a
   * batched write may wait, so that each ack still comes within the interval of the one before
   * (docs/realtime.md: the interval is the most a crash makes the client resend).
   */
  private readonly intervalMs: number;

  constructor(init: CheckpointsInit) {
    this.init = init;
    this.intervalMs = init.durability.checkpointIntervalMs - (init.batch?.waitMs ?? 0);
    this.durableAccepted = init.engine.acceptedFrames;
    // Sessions often start together (a class, a benchmark): spread their checkpoints over the
    // interval rather than writing them all at the same moments.
    this.lastAt = init.at - Math.random() * this.intervalMs;
  }

  /** The checkpoint being written, if one is. */
  get inFlight(): Promise<void> | undefined {
    return this.writing;
  }

  /** Frames accepted and not yet durable. */
  get unacked(): number {
    return this.init.engine.acceptedFrames - this.durableAccepted;
  }

  /** After frames, `unacked` of them not durable: enough of them, or some and the interval passed. */
  dueAfterFrames(at: number, unacked: number): boolean {
    return (
      unacked >= this.init.durability.checkpointMaxFrames ||
      (unacked > 0 && at - this.lastAt >= this.intervalMs)
    );
  }

  /** At a tick: a quiet session has frames not durable and the interval passed. */
  dueAt(at: number): boolean {
    return (
      this.init.engine.acceptedFrames > this.durableAccepted && at - this.lastAt >= this.intervalMs
    );
  }

  /**
   * Writes a checkpoint; `written` hears what the write found (it runs before the checkpoint
   * counts as done: whoever waits for it waits for that too). A failed write is counted and
   * logged; its records are written again by the next one.
   */
  write(written: CheckpointWritten): Promise<void> {
    // Enough frames to call for a checkpoint of their own (a replay, mostly): written at once,
    // so that a fast client is not held back by the batch's wait (flow control waits for acks).
    const batched = this.unacked < this.init.durability.checkpointMaxFrames;
    const progress = this.take();
    this.lastAt = this.init.now();
    this.writing = (async () => {
      const { metrics, logger, sessionId } = this.init;
      try {
        const status = await this.save(progress, false, batched);
        metrics.checkpoints.inc({ result: status === undefined ? "lease_lost" : "ok" });
        if (status !== undefined) this.durableAccepted = progress.accepted_frames_total;
        written(status, progress.accepted_frames_total, progress.checkpoint.last_seq);
      } catch (error) {
        metrics.checkpoints.inc({ result: "failed" });
        logger.warn({ err: error, session_id: sessionId }, "checkpoint failed");
      } finally {
        this.writing = undefined;
      }
    })();
    return this.writing;
  }

  /**
   * The attachment's last checkpoint, after the one in flight, the lease released with it: the
   * session's status, or undefined if the lease was lost.
   */
  async writeLast(): Promise<SessionStatus | undefined> {
    await this.writing;
    return this.save(this.take(), true, false);
  }

  /** Every record the engine handed over (./record-ledger.ts). */
  records(): ReturnType<RecordLedger["all"]> {
    return this.init.ledger.all();
  }

  /** What a checkpoint writes: the records made since the last one are taken out of the engine. */
  private take(): Progress {
    return this.progress(this.init.ledger.take(this.init.engine));
  }

  private progress(recordChunks: number): Progress {
    const { engine, metrics, now } = this.init;
    const lastSeq = engine.lastSeq;
    const snapshot = JSON.stringify(engine.snapshot());
    metrics.checkpointBytes.observe(snapshot.length);
    return {
      checkpoint: {
        engine: snapshot,
        accepted_frames_total: engine.acceptedFrames,
        last_seq: lastSeq,
        at: new Date(now()),
        record_chunks: recordChunks,
        recent_events: this.init.recentEvents(),
      },
      accepted_frames_total: engine.acceptedFrames,
      last_seq: lastSeq >= 0 ? lastSeq : undefined,
      last_activity_at: new Date(this.init.lastActivityAt()),
    };
  }

  /**
   * The records first (chunks the checkpoint will count), then the checkpoint under the lease;
   * `batched`: with other sessions' (init.batch), unless it releases the lease. Undefined when
   * the lease is lost (either write fenced).
   */
  private async save(
    progress: Progress,
    release: boolean,
    batched: boolean,
  ): Promise<SessionStatus | undefined> {
    const { ledger, store, sessionId, epoch, batch } = this.init;
    let status: SessionStatus | undefined;
    if (batch && batched && !release) {
      status = await batch.write({ sessionId, epoch, progress, records: ledger.unwritten() });
    } else {
      if (!(await ledger.write())) return undefined;
      status = await store.saveProgress(sessionId, epoch, progress, release);
    }
    if (status !== undefined) ledger.commit();
    return status;
  }
}

/** A checkpoint's write: its `checkpoint` always has a last_seq (-1 before any frame). */
type Progress = ProgressWrite & { readonly checkpoint: { readonly last_seq: number } };
