import type { SessionStatus } from "../domain/session-document.js";
import type { RecordStore, RecordsOf } from "../store/record-store.js";
import type { ProgressOf, SessionStore } from "../store/session-store.js";

/** The longest a checkpoint waits for others to share its write. */
export const PROGRESS_BATCH_MAX_WAIT_MS = 100;
/** The most checkpoints in one write (each about 10 KB: one command stays well under 1 MB). */
export const PROGRESS_BATCH_MAX = 64;

/**
 * How long a checkpoint waits for others at `checkpointIntervalMs`: a tenth of the interval, at
 * most PROGRESS_BATCH_MAX_WAIT_MS. Checkpoints are taken that much earlier (Checkpoints), so an
 * ack still comes within the interval of the one before.
 */
export function progressBatchWaitMs(checkpointIntervalMs: number): number {
  return Math.min(PROGRESS_BATCH_MAX_WAIT_MS, Math.floor(checkpointIntervalMs / 10));
}

/** A periodic checkpoint: the session's progress, and the record chunks it counts, if new ones. */
export interface CheckpointWrite extends ProgressOf {
  readonly records: RecordsOf | undefined;
}

/**
 * Writes a periodic checkpoint, its records first: the session's status it found, or undefined
 * (the lease lost: a newer holder wrote one of the chunks, or the session).
 */
export type ProgressWriter = (write: CheckpointWrite) => Promise<SessionStatus | undefined>;

interface Pending {
  readonly write: CheckpointWrite;
  readonly resolve: (status: SessionStatus | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The periodic checkpoints of a replica's sessions, written together: the first one waits up to
 * `waitMs` for others (or until PROGRESS_BATCH_MAX are waiting), then all their new record chunks
 * go in one command to the store, and all their progress in one more. In the store a checkpoint costs about as much again in per-command work as in
 * writing its bytes, and in the driver several times more (bench/detection/README.md), so 300
 * live sessions' 60 checkpoints a second cost a few writes instead of 60. Each checkpoint
 * answers as if written alone: when the store cannot say of every one that it found its session
 * streaming under its lease, each is written again alone (the same fields: no change) to learn
 * its own answer. A release's checkpoint is never batched: it lets go of the lease.
 */
export function createProgressBatch(
  store: SessionStore,
  records: RecordStore,
  waitMs: number,
): ProgressWriter {
  let pending: Pending[] = [];
  let timer: NodeJS.Timeout | undefined;

  const alone = (write: ProgressOf) =>
    store.saveProgress(write.sessionId, write.epoch, write.progress, false);

  /** The checkpoints whose records were written (or had none); the others are answered. */
  const writeRecords = async (all: Pending[]): Promise<Pending[]> => {
    const withRecords = all.filter((entry) => entry.write.records !== undefined);
    if (withRecords.length === 0) return all;
    const written = await records.saveMany(
      withRecords.map((entry) => entry.write.records as RecordsOf),
    );
    const fenced = new Set(withRecords.filter((_, i) => !written[i]));
    for (const entry of fenced) entry.resolve(undefined);
    return fenced.size === 0 ? all : all.filter((entry) => !fenced.has(entry));
  };

  const flush = async () => {
    clearTimeout(timer);
    timer = undefined;
    let batch = pending;
    pending = [];
    try {
      batch = await writeRecords(batch);
    } catch (error) {
      for (const entry of batch) entry.reject(error);
      return;
    }
    if (batch.length === 0) return;
    if (batch.length === 1) {
      const [only] = batch;
      alone(only.write).then(only.resolve, only.reject);
      return;
    }
    let allStreaming: boolean;
    try {
      allStreaming = await store.saveStreamingProgress(batch.map((entry) => entry.write));
    } catch (error) {
      for (const entry of batch) entry.reject(error);
      return;
    }
    for (const entry of batch) {
      if (allStreaming) entry.resolve("streaming");
      else alone(entry.write).then(entry.resolve, entry.reject);
    }
  };

  return (write) => {
    return new Promise((resolve, reject) => {
      pending.push({ write, resolve, reject });
      if (pending.length >= PROGRESS_BATCH_MAX || waitMs <= 0) void flush();
      else timer ??= setTimeout(flush, waitMs);
    });
  };
}
