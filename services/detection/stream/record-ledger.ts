import type { Engine, SummaryRecords } from "@movement-detection/movespec";
import { chunkRecords, type RecordStore, type RecordsOf } from "../store/record-store.js";

/**
 * The records (repetitions, holds) an attached session's engine hands over at each checkpoint,
 * on their way to the record store: taken with the snapshot, written as chunks before the
 * checkpoint that counts them, forgotten once that checkpoint is durable. A write that fails
 * keeps them for the next checkpoint, which writes them again from the same chunk number.
 */
export class RecordLedger {
  private committed: number;
  private pending: SummaryRecords[] = [];
  private chunks: SummaryRecords[] = [];

  constructor(
    private readonly store: RecordStore,
    private readonly sessionId: string,
    private readonly epoch: number,
    /** Chunks counted by the checkpoint the session was restored from. */
    committedChunks: number,
  ) {
    this.committed = committedChunks;
  }

  /** Takes the engine's new records; returns the chunk count the next checkpoint records. */
  take(engine: Engine): number {
    const taken = engine.takeRecords();
    if (taken.reps.length > 0 || taken.holds.length > 0) {
      this.pending.push(taken);
      this.chunks = chunkRecords(this.pending);
    }
    return this.committed + this.chunks.length;
  }

  /** Writes what was taken; false if a newer lease holder wrote these chunks (fenced). */
  write(): Promise<boolean> {
    const unwritten = this.unwritten();
    if (!unwritten) return Promise.resolve(true);
    return this.store.save(unwritten.sessionId, unwritten.first, unwritten.epoch, unwritten.chunks);
  }

  /** What `write` would write (written with other sessions' instead: ./progress-batch.ts). */
  unwritten(): RecordsOf | undefined {
    if (this.chunks.length === 0) return undefined;
    const { sessionId, epoch, committed, chunks } = this;
    return { sessionId, first: committed, epoch, chunks };
  }

  /** The checkpoint that counts the written chunks is durable. */
  commit(): void {
    this.committed += this.chunks.length;
    this.pending = [];
    this.chunks = [];
  }

  /** Every record taken so far: the durable chunks (read back) and the ones not yet durable. */
  async all(): Promise<{ records: SummaryRecords[]; missing: number }> {
    const { chunks, missing } = await this.store.list(this.sessionId, this.committed);
    return { records: [...chunks, ...this.pending], missing };
  }
}
