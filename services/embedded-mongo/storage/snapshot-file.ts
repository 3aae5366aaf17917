/**
 * Snapshots: the whole committed state in one file, written to a temporary name, fsynced,
 * renamed into place and the directory fsynced, so a snapshot file is either complete or
 * absent. Any damage in a snapshot is reported as corruption (it is never silently skipped).
 *
 * Format (record framing from record-file.ts, magic "EMSNP002"), one BSON header per record:
 *   meta  {t: "meta", generation, createdAt}                      first record
 *   coll  {t: "coll", db, name, options, uuid, indexes}           one per collection
 *   docs  {t: "docs", ns, n} followed by n BSON documents          after their collection
 *   end   {t: "end", collections, docs}                           last record: the counts
 * A docs record is closed once it holds SNAPSHOT_RECORD_BYTES of documents, so it is at
 * most that plus one document (up to the 16 MiB BSON limit). Both directions stream: one record in
 * memory at a time, never the whole file. Version 1 files ("EMSNP001", documents as an array
 * inside the docs header) are still read.
 */
import fs from "node:fs";
import path from "node:path";
import { crc32 } from "node:zlib";
import { type Binary, BSON } from "bson";
import type { Doc } from "../bson-values.js";
import type { IndexSpec } from "./collection-index.js";
import {
  CorruptFileError,
  encodeRecordParts,
  RECORD_HEADER_BYTES,
  RecordReader,
} from "./record-file.js";

export const SNAPSHOT_MAGIC = "EMSNP002";
const SNAPSHOT_MAGIC_V1 = "EMSNP001";
/** Target payload of a docs record: small enough to serialize without a noticeable pause. */
export const SNAPSHOT_RECORD_BYTES = 1024 * 1024;

const DESERIALIZE_OPTIONS = { promoteLongs: true };
/** The largest document bson can serialize (its internal buffer). */
const SERIALIZE_LIMIT = 17 * 1024 * 1024;
/** As BSON.serialize does by default (which serializeWithBufferAndIndex does not). */
const SERIALIZE_OPTIONS = (index: number) => ({ index, ignoreUndefined: false, checkKeys: false });

/** The BSON document opening every record (fields by record kind). */
interface RecordHeader {
  t?: unknown;
  generation?: number;
  db?: unknown;
  name?: unknown;
  options?: Doc;
  uuid?: Binary;
  indexes?: IndexSpec[];
  ns?: unknown;
  n?: unknown;
  docs?: unknown;
  collections?: unknown;
}

export interface SnapshotCollectionInfo {
  db: string;
  name: string;
  options: Doc;
  uuid: Binary;
  indexes: IndexSpec[];
}

export interface SnapshotCollection extends SnapshotCollectionInfo {
  docs: readonly Doc[];
}

export interface SnapshotContent {
  generation: number;
  collections: SnapshotCollection[];
}

export interface SnapshotStats {
  bytes: number;
  records: number;
  docs: number;
}

/** Where a snapshot write is: after each record written, and once complete and fsynced. */
export type SnapshotStage = "record" | "synced";

export interface WriteSnapshotOptions {
  recordBytes?: number;
  /** Called at each stage; throwing there abandons the write (shutdown, test fail points). */
  checkpoint?: (stage: SnapshotStage) => void;
}

/**
 * Writes `content` to `file` (via `file.tmp`) one record at a time, yielding to the event
 * loop between records. On failure the temporary file is removed and `file` is untouched.
 */
export async function writeSnapshot(
  file: string,
  content: SnapshotContent,
  options: WriteSnapshotOptions = {},
): Promise<SnapshotStats> {
  const recordBytes = options.recordBytes ?? SNAPSHOT_RECORD_BYTES;
  const checkpoint = options.checkpoint ?? (() => {});
  const tmp = `${file}.tmp`;
  const handle = await fs.promises.open(tmp, "w");
  const stats: SnapshotStats = { bytes: 0, records: 0, docs: 0 };
  const writeAll = async (bytes: Buffer): Promise<void> => {
    let done = 0;
    while (done < bytes.length) {
      done += (await handle.write(bytes, done, bytes.length - done)).bytesWritten;
    }
    stats.bytes += bytes.length;
  };
  const writeRecord = async (parts: Uint8Array[]): Promise<void> => {
    await writeAll(encodeRecordParts(parts));
    stats.records++;
    checkpoint("record");
  };
  try {
    await writeAll(Buffer.from(SNAPSHOT_MAGIC, "latin1"));
    await writeRecord([
      BSON.serialize({ t: "meta", generation: content.generation, createdAt: new Date() }),
    ]);
    // Documents are serialized straight into one reused record buffer: no allocation or
    // copy per document. A record is sent once it holds recordBytes, so it is at most that
    // plus one document.
    const buffer = Buffer.allocUnsafe(
      RECORD_HEADER_BYTES + recordBytes + SERIALIZE_LIMIT + 64 * 1024,
    );
    for (const c of content.collections) {
      const ns = `${c.db}.${c.name}`;
      const { db, name, options: collOptions, uuid, indexes } = c;
      await writeRecord([
        BSON.serialize({ t: "coll", db, name, options: collOptions, uuid, indexes }),
      ]);
      // The header's count is an int32: its size is known before the documents are.
      const first = RECORD_HEADER_BYTES + BSON.calculateObjectSize({ t: "docs", ns, n: 0 });
      let end = first;
      let n = 0;
      const flush = async (): Promise<void> => {
        BSON.serializeWithBufferAndIndex({ t: "docs", ns, n }, buffer, {
          index: RECORD_HEADER_BYTES,
        });
        const payload = buffer.subarray(RECORD_HEADER_BYTES, end);
        buffer.writeUInt32LE(payload.length, 0);
        buffer.writeUInt32LE(crc32(payload), 4);
        await writeAll(buffer.subarray(0, end));
        stats.records++;
        stats.docs += n;
        end = first;
        n = 0;
        checkpoint("record");
      };
      for (const doc of c.docs) {
        end = BSON.serializeWithBufferAndIndex(doc, buffer, SERIALIZE_OPTIONS(end)) + 1;
        n++;
        if (end - RECORD_HEADER_BYTES >= recordBytes) await flush();
      }
      if (n > 0) await flush();
    }
    await writeRecord([
      BSON.serialize({ t: "end", collections: content.collections.length, docs: stats.docs }),
    ]);
    await handle.sync();
    checkpoint("synced");
    await handle.close();
    await fs.promises.rename(tmp, file);
  } catch (error) {
    await handle.close().catch(() => {});
    await fs.promises.rm(tmp, { force: true }).catch(() => {});
    throw error;
  }
  // Should this fail, the renamed file is complete and fsynced all the same: were it found
  // after a crash, it is the state at the start of its log, as any snapshot.
  await syncDirAsync(path.dirname(file));
  return stats;
}

export function syncDir(dir: string): void {
  const fd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

async function syncDirAsync(dir: string): Promise<void> {
  const handle = await fs.promises.open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Receives a snapshot's contents as it is read: a collection, then batches of its documents. */
export interface SnapshotSink {
  collection(info: SnapshotCollectionInfo): void;
  documents(ns: string, docs: Doc[]): void;
}

export interface SnapshotSummary {
  generation: number;
  collections: number;
  docs: number;
}

/**
 * Reads a snapshot one record at a time into `sink`; throws CorruptFileError on any damage
 * (after which whatever the sink received must be discarded).
 */
export function readSnapshot(file: string, sink: SnapshotSink): SnapshotSummary {
  const reader = RecordReader.open(file, [SNAPSHOT_MAGIC, SNAPSHOT_MAGIC_V1]);
  try {
    const corrupt = (reason: string): CorruptFileError =>
      new CorruptFileError(file, reader.recordOffset, reason);
    const next = (): Buffer => {
      const payload = reader.next();
      if (payload) return payload;
      if (reader.tornTailAt !== undefined) {
        throw new CorruptFileError(file, reader.tornTailAt, "snapshot is truncated");
      }
      throw new CorruptFileError(file, reader.validLength, "snapshot lacks its end record");
    };
    const meta = readBson(next(), 0, corrupt).doc as RecordHeader;
    if (meta.t !== "meta") throw corrupt("snapshot lacks its meta record");
    const known = new Set<string>();
    let docs = 0;
    for (;;) {
      const payload = next();
      const { doc, end } = readBson(payload, 0, corrupt);
      const header = doc as RecordHeader;
      if (header.t === "coll") {
        if (typeof header.db !== "string" || typeof header.name !== "string" || !header.uuid) {
          throw corrupt("collection record without db, name or uuid");
        }
        const info: SnapshotCollectionInfo = {
          db: header.db,
          name: header.name,
          options: header.options ?? {},
          uuid: header.uuid,
          indexes: header.indexes ?? [],
        };
        known.add(`${info.db}.${info.name}`);
        sink.collection(info);
      } else if (header.t === "docs") {
        if (typeof header.ns !== "string" || !known.has(header.ns)) {
          throw corrupt(`documents for unknown collection ${String(header.ns)}`);
        }
        const batch = Array.isArray(header.docs)
          ? (header.docs as Doc[])
          : readDocuments(payload, end, header.n, corrupt);
        docs += batch.length;
        sink.documents(header.ns, batch);
      } else if (header.t === "end") {
        if (header.collections !== known.size || header.docs !== docs) {
          throw corrupt("snapshot record counts do not match its end record");
        }
        if (reader.next() !== undefined || reader.tornTailAt !== undefined) {
          throw corrupt("data after the snapshot's end record");
        }
        return { generation: Number(meta.generation), collections: known.size, docs };
      } else {
        throw corrupt(`unknown snapshot record ${JSON.stringify(header.t)}`);
      }
    }
  } finally {
    reader.close();
  }
}

/** The n BSON documents packed after a docs header, each copied out of the read buffer. */
function readDocuments(
  payload: Buffer,
  from: number,
  n: unknown,
  corrupt: (reason: string) => CorruptFileError,
): Doc[] {
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0) {
    throw corrupt("docs record without a valid document count");
  }
  const docs: Doc[] = new Array(n);
  let offset = from;
  for (let i = 0; i < n; i++) {
    const read = readBson(payload, offset, corrupt);
    docs[i] = read.doc;
    offset = read.end;
  }
  if (offset !== payload.length) throw corrupt("docs record holds more than its count");
  return docs;
}

/**
 * One BSON document at `offset`. Deserialized from a copy: bson's Binary values are views
 * of their input, and the read buffer is reused for the next record.
 */
function readBson(
  payload: Buffer,
  offset: number,
  corrupt: (reason: string) => CorruptFileError,
): { doc: Doc; end: number } {
  const size = payload.length - offset >= 4 ? payload.readInt32LE(offset) : 0;
  if (size < 5 || offset + size > payload.length) {
    throw corrupt("malformed BSON document inside a snapshot record");
  }
  const end = offset + size;
  try {
    return {
      doc: BSON.deserialize(Buffer.from(payload.subarray(offset, end)), DESERIALIZE_OPTIONS),
      end,
    };
  } catch (error) {
    throw corrupt(`unreadable BSON document: ${(error as Error).message}`);
  }
}
