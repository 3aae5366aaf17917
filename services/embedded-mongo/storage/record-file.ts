/**
 * Framing shared by the write-ahead log and snapshots: a file starts with an 8-byte magic
 * string, then records of [length u32 LE][crc32 u32 LE][payload]. A record whose bytes run
 * past the end of the file (with no whole record after it), or the very last record failing its
 * checksum, is a torn write (the process died mid-append) and is cut; a bad record followed by
 * more data is corruption.
 *
 * Files are read one record at a time (`RecordReader`), never whole: memory is bounded by
 * the largest record, however large the file.
 */
import fs from "node:fs";
import { crc32 } from "node:zlib";

export const RECORD_HEADER_BYTES = 8;
export const MAGIC_BYTES = 8;
const MAX_RECORD_BYTES = 1024 * 1024 * 1024;
const READ_AHEAD_BYTES = 1024 * 1024;
/** More than any one append writes (a batch of records): a tail longer than this is not torn. */
const MAX_TORN_TAIL_BYTES = 64 * 1024 * 1024;

/** One record holding `payload`, ready to append. */
export function encodeRecord(payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(RECORD_HEADER_BYTES + payload.length);
  out.writeUInt32LE(payload.length, 0);
  out.writeUInt32LE(crc32(payload), 4);
  out.set(payload, RECORD_HEADER_BYTES);
  return out;
}

/** One record whose payload is the concatenation of `parts` (no intermediate copy of them). */
export function encodeRecordParts(parts: readonly Uint8Array[]): Buffer {
  let length = 0;
  let checksum = 0;
  for (const part of parts) {
    length += part.length;
    checksum = crc32(part, checksum);
  }
  const out = Buffer.allocUnsafe(RECORD_HEADER_BYTES + length);
  out.writeUInt32LE(length, 0);
  out.writeUInt32LE(checksum, 4);
  let offset = RECORD_HEADER_BYTES;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
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

/**
 * Reads a record file front to back. `next()` returns the next good record's payload, or
 * undefined at the end of the file or at a torn tail (then `tornTailAt` is set). A payload
 * is a view into the reader's buffer, valid only until the next call: copy what you keep.
 */
export class RecordReader {
  /** The magic string the file starts with (one of those allowed). */
  readonly magic: string;
  /** Bytes from the start of the file up to the end of the last good record. */
  validLength = 0;
  /** Set when the file ended in a partial or unreadable final record. */
  tornTailAt: number | undefined;
  /** File offset of the record `next()` returned last. */
  recordOffset = 0;

  private buffer = Buffer.allocUnsafe(READ_AHEAD_BYTES);
  /** File offset of buffer[0]. */
  private bufferAt = 0;
  private buffered = 0;
  private offset = 0;
  private done = false;

  private constructor(
    readonly file: string,
    private fd: number,
    readonly size: number,
    magics: readonly string[],
  ) {
    const head = this.view(0, Math.min(MAGIC_BYTES, size)).toString("latin1");
    if (size < MAGIC_BYTES) {
      if (size === 0 || magics.some((m) => m.startsWith(head))) {
        this.magic = magics[0];
        this.tornTailAt = 0;
        this.done = true;
        return;
      }
      throw new CorruptFileError(file, 0, "not a data file of this server (bad header)");
    }
    const magic = magics.find((m) => m === head);
    if (!magic) throw new CorruptFileError(file, 0, `bad header (expected ${magics.join(" or ")})`);
    this.magic = magic;
    this.offset = MAGIC_BYTES;
    this.validLength = MAGIC_BYTES;
  }

  static open(file: string, magics: readonly string[]): RecordReader {
    const fd = fs.openSync(file, "r");
    try {
      return new RecordReader(file, fd, fs.fstatSync(fd).size, magics);
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }

  next(): Buffer | undefined {
    if (this.done) return undefined;
    const start = this.offset;
    if (start === this.size) return this.finish();
    if (this.size - start < RECORD_HEADER_BYTES) return this.torn(start);
    const header = this.view(start, RECORD_HEADER_BYTES);
    const length = header.readUInt32LE(0);
    const expected = header.readUInt32LE(4);
    if (length > MAX_RECORD_BYTES) {
      throw new CorruptFileError(this.file, start, `impossible record length ${length}`);
    }
    const end = start + RECORD_HEADER_BYTES + length;
    if (end > this.size) {
      const damage = this.evidenceOfDamage(start);
      if (damage) {
        throw new CorruptFileError(
          this.file,
          start,
          `record length ${length} runs past the end of the file, yet ${damage}: the length is damaged`,
        );
      }
      return this.torn(start);
    }
    const payload = this.view(start + RECORD_HEADER_BYTES, length);
    if (crc32(payload) !== expected) {
      if (end === this.size) return this.torn(start);
      throw new CorruptFileError(
        this.file,
        start,
        "checksum mismatch in a record followed by more data",
      );
    }
    this.offset = end;
    this.validLength = end;
    this.recordOffset = start;
    return payload;
  }

  close(): void {
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
    this.done = true;
  }

  private finish(): undefined {
    this.close();
    return undefined;
  }

  /**
   * Why a record at `start` whose length runs past the end cannot be a torn append, or undefined
   * when it can. A torn append ends the file: nothing whole comes after it, so a complete record
   * (a payload of at least one byte whose checksum matches) anywhere after the header means the
   * length was damaged, and cutting the file there would silently drop every acknowledged write
   * after it. Past MAX_TORN_TAIL_BYTES of remaining file it is damage without looking: no append
   * is that large.
   */
  private evidenceOfDamage(start: number): string | undefined {
    const remaining = this.size - start;
    if (remaining > MAX_TORN_TAIL_BYTES) {
      return `${remaining} bytes follow it, more than any append writes`;
    }
    const tail = Buffer.from(this.view(start, remaining));
    for (let at = RECORD_HEADER_BYTES; at + RECORD_HEADER_BYTES < tail.length; at++) {
      const length = tail.readUInt32LE(at);
      const end = at + RECORD_HEADER_BYTES + length;
      if (length === 0 || end > tail.length) continue;
      const payload = tail.subarray(at + RECORD_HEADER_BYTES, end);
      if (crc32(payload) === tail.readUInt32LE(at + 4)) return "a complete record follows";
    }
    return undefined;
  }

  private torn(at: number): undefined {
    this.tornTailAt = at;
    return this.finish();
  }

  /** `length` bytes at file offset `at` (at >= every earlier request), from the read-ahead buffer. */
  private view(at: number, length: number): Buffer {
    if (at < this.bufferAt || at + length > this.bufferAt + this.buffered) {
      const keep = Math.max(0, this.bufferAt + this.buffered - at);
      const capacity = Math.max(READ_AHEAD_BYTES, length);
      if (capacity > this.buffer.length) {
        const bigger = Buffer.allocUnsafe(capacity);
        if (keep > 0) this.buffer.copy(bigger, 0, this.buffered - keep, this.buffered);
        this.buffer = bigger;
      } else if (keep > 0) {
        this.buffer.copyWithin(0, this.buffered - keep, this.buffered);
      }
      this.bufferAt = at;
      this.buffered = keep;
      const want = Math.min(this.buffer.length, this.size - at);
      while (this.buffered < want) {
        const read = fs.readSync(
          this.fd,
          this.buffer,
          this.buffered,
          want - this.buffered,
          at + this.buffered,
        );
        if (read === 0) break;
        this.buffered += read;
      }
      if (this.buffered < length) {
        throw new CorruptFileError(this.file, at, "file shrank while it was being read");
      }
    }
    const from = at - this.bufferAt;
    return this.buffer.subarray(from, from + length);
  }
}
