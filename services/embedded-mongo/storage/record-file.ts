/**
 * Framing shared by the write-ahead log and snapshots: a file starts with an 8-byte magic
 * string, then records of [length u32 LE][crc32 u32 LE][payload]. A record whose bytes run
 * past the end of the file, or the very last record failing its checksum, is a torn write
 * (the process died mid-append) and is cut; a bad record followed by more data is corruption.
 */
import { crc32 } from "node:zlib";

export const RECORD_HEADER_BYTES = 8;
const MAX_RECORD_BYTES = 1024 * 1024 * 1024;

export function encodeRecord(payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(RECORD_HEADER_BYTES + payload.length);
  out.writeUInt32LE(payload.length, 0);
  out.writeUInt32LE(crc32(payload), 4);
  out.set(payload, RECORD_HEADER_BYTES);
  return out;
}

export interface ScanResult {
  records: Buffer[];
  /** Bytes from the start of the file up to the end of the last good record. */
  validLength: number;
  /** Set when the file ended in a partial or unreadable final record. */
  tornTailAt?: number;
}

export class CorruptFileError extends Error {
  constructor(
    readonly file: string,
    readonly offset: number,
    reason: string,
  ) {
    super(`corrupt data file ${file} at byte ${offset}: ${reason}`);
  }
}

export function scanRecords(file: string, data: Buffer, magic: string): ScanResult {
  if (data.length < magic.length) {
    if (data.length === 0 || magic.startsWith(data.toString("latin1"))) {
      return { records: [], validLength: 0, tornTailAt: 0 };
    }
    throw new CorruptFileError(file, 0, "not a data file of this server (bad header)");
  }
  if (data.toString("latin1", 0, magic.length) !== magic) {
    throw new CorruptFileError(file, 0, `bad header (expected ${magic})`);
  }
  const records: Buffer[] = [];
  let offset = magic.length;
  while (offset < data.length) {
    if (data.length - offset < RECORD_HEADER_BYTES) {
      return { records, validLength: offset, tornTailAt: offset };
    }
    const length = data.readUInt32LE(offset);
    const expected = data.readUInt32LE(offset + 4);
    const end = offset + RECORD_HEADER_BYTES + length;
    if (length > MAX_RECORD_BYTES) {
      throw new CorruptFileError(file, offset, `impossible record length ${length}`);
    }
    if (end > data.length) return { records, validLength: offset, tornTailAt: offset };
    const payload = data.subarray(offset + RECORD_HEADER_BYTES, end);
    if (crc32(payload) !== expected) {
      if (end === data.length) return { records, validLength: offset, tornTailAt: offset };
      throw new CorruptFileError(
        file,
        offset,
        "checksum mismatch in a record followed by more data",
      );
    }
    records.push(payload);
    offset = end;
  }
  return { records, validLength: offset };
}
