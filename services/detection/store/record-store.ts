import type { SummaryRecords } from "@movement-detection/movespec";
import {
  ensureTtlIndex,
  guardStore,
  isDuplicateKey,
  ttlSeconds,
} from "@movement-detection/shared/store";
import {
  type Collection,
  type Db,
  type Filter,
  MongoBulkWriteError,
  type WriteError,
} from "mongodb";

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
   * When the chunk was written: a chunk its session's end did not remove is deleted by the
   * `retention` TTL index on it (absent in chunks written before there was one: kept).
   */
  written_at?: Date;
  /**
   * The chunk's SummaryRecords as JSON text: the store keeps it opaque, and reading a 4-hour
   * session back (1.7 MB) is a JSON.parse per chunk rather than a slower BSON decode of
   * thousands of small objects on the replica's event loop.
   */
  records: string;
}

/** One session's chunks among others' (RecordStore.saveMany): as RecordStore.save's arguments. */
export interface RecordsOf {
  readonly sessionId: string;
  readonly first: number;
  readonly epoch: number;
  readonly chunks: readonly SummaryRecords[];
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
  /**
   * Several sessions' chunks in one command, each fenced as `save` fences it: for each write,
   * false if one of its chunks was written under a newer lease epoch. Throws on any other failure
   * (some chunks may then be written: as with `save`, the next checkpoint writes them again).
   */
  saveMany(writes: readonly RecordsOf[]): Promise<boolean[]>;
  /** Chunks 0 to `count - 1`, in order; `missing` counts the ones not found. */
  list(sessionId: string, count: number): Promise<{ chunks: SummaryRecords[]; missing: number }>;
  /** Every chunk of the session (its summary has been written). */
  removeAll(sessionId: string): Promise<void>;
}

/** Most records in one chunk (a few hundred bytes each): every write stays small. */
export const RECORDS_PER_CHUNK = 200;
/**
 * What one read of a session's chunks aims to bring back, in bytes of records' JSON: parsed in
 * one turn of the replica's event loop (about 2 ms), with other sessions' frames read between
 * the reads.
 */
export const RECORD_BYTES_PER_READ = 256 * 1024;
/** Chunks in a session's first read, before their size is known; and the most in any read. */
const FIRST_READ_CHUNKS = 8;
const MAX_READ_CHUNKS = 4096;

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

/** Chunks in the next read, when the chunks so far average `bytesPerChunk` of JSON. */
export function readSize(bytesPerChunk: number): number {
  if (!(bytesPerChunk > 0)) return FIRST_READ_CHUNKS;
  return Math.max(1, Math.min(MAX_READ_CHUNKS, Math.floor(RECORD_BYTES_PER_READ / bytesPerChunk)));
}

export interface RecordStoreOptions {
  /** How long after it was written a chunk is deleted (domain/session-retention.ts); undefined: never. */
  readonly ttlMs?: number;
  readonly now?: () => number;
}

const idOf = (sessionId: string, chunk: number) => `${sessionId}/${chunk}`;

/** Chunk `first + offset` of a session, written unless a newer lease epoch wrote it. */
function chunkWrite(
  { sessionId, first, epoch }: Omit<RecordsOf, "chunks">,
  offset: number,
  chunk: SummaryRecords,
  writtenAt: Date,
): { filter: Filter<RecordChunkDocument>; replacement: Omit<RecordChunkDocument, "_id"> } {
  const index = first + offset;
  return {
    filter: { _id: idOf(sessionId, index), lease_epoch: { $lte: epoch } },
    replacement: {
      session_id: sessionId,
      chunk: index,
      lease_epoch: epoch,
      written_at: writtenAt,
      records: JSON.stringify(chunk),
    },
  };
}

/** E11000: an operation of a bulk write met a unique index (its own error is no MongoError). */
const DUPLICATE_KEY = 11000;

/** The failed operations of a bulk write that failed in part, if that is what `error` is. */
function writeErrorsOf(error: unknown): readonly WriteError[] | undefined {
  if (!(error instanceof MongoBulkWriteError)) return undefined;
  const failures = error.writeErrors;
  return Array.isArray(failures) ? failures : [failures as WriteError];
}

export function createRecordStore(db: Db, options: RecordStoreOptions = {}): RecordStore {
  const now = options.now ?? Date.now;
  const records: Collection<RecordChunkDocument> =
    db.collection<RecordChunkDocument>("session_records");
  return guardStore("session_records", {
    async ensureIndexes() {
      await Promise.all([
        records.createIndex({ session_id: 1, chunk: 1 }, { name: "session_chunk" }),
        ensureTtlIndex(records, {
          name: "retention",
          field: "written_at",
          expireAfterSeconds: ttlSeconds(options.ttlMs),
        }),
      ]);
    },

    async saveMany(writes) {
      const writtenAt = new Date(now());
      const written = writes.map(() => true);
      /** The write each operation belongs to. */
      const owners: number[] = [];
      const operations = writes.flatMap((write, owner) =>
        write.chunks.map((chunk, offset) => {
          owners.push(owner);
          const { filter, replacement } = chunkWrite(write, offset, chunk, writtenAt);
          return { replaceOne: { filter, replacement, upsert: true } };
        }),
      );
      if (operations.length === 0) return written;
      try {
        await records.bulkWrite(operations, { ordered: false });
      } catch (error) {
        const failures = writeErrorsOf(error);
        // The filter did not match an existing chunk: a newer lease holder wrote it.
        if (!failures?.every((failure) => failure.code === DUPLICATE_KEY)) throw error;
        for (const failure of failures) written[owners[failure.index]] = false;
      }
      return written;
    },

    async save(sessionId, first, epoch, chunks) {
      const writtenAt = new Date(now());
      for (const [offset, chunk] of chunks.entries()) {
        try {
          const write = chunkWrite({ sessionId, first, epoch }, offset, chunk, writtenAt);
          await records.replaceOne(write.filter, write.replacement, { upsert: true });
        } catch (error) {
          // The filter did not match an existing chunk: a newer lease holder wrote it.
          if (isDuplicateKey(error)) return false;
          throw error;
        }
      }
      return true;
    },

    async list(sessionId, count) {
      // A live session's chunk is one checkpoint's records (5 s: a repetition or two, a few
      // hundred bytes); a replay's can hold RECORDS_PER_CHUNK (about 56 KB). So reads go by size:
      // the chunks read so far tell how many make RECORD_BYTES_PER_READ. A 20-minute live
      // session (240 chunks) is two round trips, not one per few chunks.
      const chunks: SummaryRecords[] = [];
      let next = 0;
      let size = FIRST_READ_CHUNKS;
      let bytesSeen = 0;
      while (next < count) {
        const upTo = Math.min(count, next + size);
        const docs = await records
          .find({ session_id: sessionId, chunk: { $gte: next, $lt: upTo } })
          .sort({ chunk: 1 })
          .limit(upTo - next)
          .batchSize(upTo - next)
          .toArray();
        for (const doc of docs) {
          chunks.push(JSON.parse(doc.records) as SummaryRecords);
          bytesSeen += doc.records.length;
        }
        next = upTo;
        const bytesPerChunk = chunks.length > 0 ? bytesSeen / chunks.length : 0;
        size = readSize(bytesPerChunk);
      }
      return { chunks, missing: count - chunks.length };
    },

    async removeAll(sessionId) {
      await records.deleteMany({ session_id: sessionId });
    },
  });
}
