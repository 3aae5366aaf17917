import type { Collection, Db } from "mongodb";
import type { SummaryRecords } from "../../../movespec/index.js";
import { isDuplicateKey } from "../../shared/store/mongo-failure.js";
import { guardStore } from "../../shared/store/store-errors.js";

/**
 * The repetition and hold records of a session, taken out of its engine at each checkpoint
 * (so that checkpoints stay the same size however long the session) and stored in numbered
 * chunks, collection `session_records`, until the session's end lists them in its summary.
 *
 * A chunk is written before the checkpoint that counts it (`record_chunks`); a chunk at or past
 * that count is not part of the session yet and is overwritten by the next holder of the lease.
 * Writes are fenced like every write under a lease: a chunk already written under a newer lease
 * epoch is never overwritten by an older one.
 */
export interface RecordChunkDocument {
  /** `{session_id}/{chunk}` */
  _id: string;
  session_id: string;
  chunk: number;
  lease_epoch: number;
  /**
   * The chunk's SummaryRecords as JSON text: the store keeps it opaque, and reading a 4-hour
   * session back (1.7 MB) is a JSON.parse per chunk rather than a slower BSON decode of
   * thousands of small objects on the replica's event loop.
   */
  records: string;
}

export interface RecordStore {
  ensureIndexes(): Promise<void>;
  /**
   * Writes `chunks` as chunks `first`, `first + 1`, ... of the session; false if one of them was
   * written under a newer lease epoch (this replica lost the lease).
   */
  save(
    sessionId: string,
    first: number,
    epoch: number,
    chunks: readonly SummaryRecords[],
  ): Promise<boolean>;
  /** Chunks 0 to `count - 1`, in order; `missing` counts the ones not found. */
  list(sessionId: string, count: number): Promise<{ chunks: SummaryRecords[]; missing: number }>;
  /** Every chunk of the session (its summary has been written). */
  removeAll(sessionId: string): Promise<void>;
}

/** Most records in one chunk (a few hundred bytes each): every write stays small. */
export const RECORDS_PER_CHUNK = 200;
const CHUNKS_PER_READ = 4;

/** Splits records into chunks of at most `RECORDS_PER_CHUNK`, repetitions first. */
export function chunkRecords(taken: readonly SummaryRecords[]): SummaryRecords[] {
  const reps = taken.flatMap((records) => records.reps);
  const holds = taken.flatMap((records) => records.holds);
  const chunks: SummaryRecords[] = [];
  for (let i = 0; i < reps.length; i += RECORDS_PER_CHUNK)
    chunks.push({ reps: reps.slice(i, i + RECORDS_PER_CHUNK), holds: [] });
  for (let i = 0; i < holds.length; i += RECORDS_PER_CHUNK)
    chunks.push({ reps: [], holds: holds.slice(i, i + RECORDS_PER_CHUNK) });
  return chunks;
}

export function createRecordStore(db: Db): RecordStore {
  const records: Collection<RecordChunkDocument> =
    db.collection<RecordChunkDocument>("session_records");
  const idOf = (sessionId: string, chunk: number) => `${sessionId}/${chunk}`;

  return guardStore("session_records", {
    async ensureIndexes() {
      await records.createIndex({ session_id: 1, chunk: 1 }, { name: "session_chunk" });
    },

    async save(sessionId, first, epoch, chunks) {
      for (const [offset, chunk] of chunks.entries()) {
        const index = first + offset;
        try {
          await records.replaceOne(
            { _id: idOf(sessionId, index), lease_epoch: { $lte: epoch } },
            {
              session_id: sessionId,
              chunk: index,
              lease_epoch: epoch,
              records: JSON.stringify(chunk),
            },
            { upsert: true },
          );
        } catch (error) {
          // The filter did not match an existing chunk: a newer lease holder wrote it.
          if (isDuplicateKey(error)) return false;
          throw error;
        }
      }
      return true;
    },

    async list(sessionId, count) {
      if (count <= 0) return { chunks: [], missing: 0 };
      // Small batches: a long session's chunks arrive (and are parsed) a few at a time, with
      // other sessions' frames read in between.
      const cursor = records
        .find({ session_id: sessionId, chunk: { $lt: count } })
        .sort({ chunk: 1 })
        .batchSize(CHUNKS_PER_READ);
      const chunks: SummaryRecords[] = [];
      for await (const doc of cursor) chunks.push(JSON.parse(doc.records) as SummaryRecords);
      return { chunks, missing: count - chunks.length };
    },

    async removeAll(sessionId) {
      await records.deleteMany({ session_id: sessionId });
    },
  });
}
