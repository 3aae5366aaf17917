/**
 * The append-only operation log. Appends are written to the file with a synchronous
 * write(2) before a write is acknowledged, so an acknowledged write survives the server
 * process being killed (the bytes are in the kernel's page cache). fsync policy, for
 * surviving an OS crash or power loss:
 * - "interval" (default): fdatasync every `intervalMs` (100 ms, like mongod's journal
 *   commit interval); a write with `writeConcern: { j: true }` waits for the next sync.
 * - "always": every acknowledged write waits for an fdatasync (concurrent writes share one).
 */
import fs from "node:fs";
import { encodeRecord, RecordReader } from "./record-file.js";

export const WAL_MAGIC = "EMWAL001";

export type FsyncPolicy = "always" | "interval";

export interface ReplayResult {
  records: number;
  /** Bytes up to the end of the last good record. */
  validLength: number;
  /** Set when the file ended in a partial or unreadable final record. */
  tornTailAt?: number;
}

export class WriteAheadLog {
  private fd: number;
  private bytes: number;
  private dirty = false;
  private syncing: Promise<void> | undefined;
  private syncQueued: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    readonly file: string,
    fd: number,
    size: number,
    private readonly policy: FsyncPolicy,
    intervalMs: number,
  ) {
    this.fd = fd;
    this.bytes = size;
    if (policy === "interval") {
      this.timer = setInterval(() => {
        if (this.dirty) this.sync().catch(() => {});
      }, intervalMs);
      this.timer.unref();
    }
  }

  /** Opens (creating if needed) a log for appending, first cutting a torn tail at `validLength`. */
  static open(
    file: string,
    policy: FsyncPolicy,
    intervalMs: number,
    validLength?: number,
  ): WriteAheadLog {
    const exists = fs.existsSync(file);
    const fd = fs.openSync(file, exists ? "r+" : "w+");
    const current = fs.fstatSync(fd).size;
    let size: number;
    if (current === 0 || (validLength !== undefined && validLength < WAL_MAGIC.length)) {
      fs.ftruncateSync(fd, 0);
      fs.writeSync(fd, WAL_MAGIC, 0, "latin1");
      fs.fsyncSync(fd);
      size = WAL_MAGIC.length;
    } else {
      size = validLength ?? current;
      if (size < current) {
        fs.ftruncateSync(fd, size);
        fs.fsyncSync(fd);
      }
    }
    return new WriteAheadLog(file, fd, size, policy, intervalMs);
  }

  /**
   * Creates a new, empty log (failing if the file exists): magic written and fsynced. The
   * caller fsyncs the directory before relying on the file.
   */
  static create(file: string, policy: FsyncPolicy, intervalMs: number): WriteAheadLog {
    const fd = fs.openSync(file, "wx");
    try {
      fs.writeSync(fd, WAL_MAGIC, 0, "latin1");
      fs.fsyncSync(fd);
    } catch (error) {
      fs.closeSync(fd);
      fs.rmSync(file, { force: true });
      throw error;
    }
    return new WriteAheadLog(file, fd, WAL_MAGIC.length, policy, intervalMs);
  }

  /** Reads a log front to back, one record at a time (the payload is only valid during the call). */
  static replay(file: string, onRecord: (payload: Buffer, offset: number) => void): ReplayResult {
    const reader = RecordReader.open(file, [WAL_MAGIC]);
    let records = 0;
    try {
      for (let payload = reader.next(); payload; payload = reader.next()) {
        onRecord(payload, reader.recordOffset);
        records++;
      }
    } finally {
      reader.close();
    }
    return { records, validLength: reader.validLength, tornTailAt: reader.tornTailAt };
  }

  get size(): number {
    return this.bytes;
  }

  get syncsEveryWrite(): boolean {
    return this.policy === "always";
  }

  /** Appends one record synchronously at the end of the file. */
  append(payload: Uint8Array): void {
    const record = encodeRecord(payload);
    let written = 0;
    while (written < record.length) {
      written += fs.writeSync(
        this.fd,
        record,
        written,
        record.length - written,
        this.bytes + written,
      );
    }
    this.bytes += record.length;
    this.dirty = true;
  }

  /** Resolves once everything appended before the call is on stable storage. */
  sync(): Promise<void> {
    if (this.fd < 0) return Promise.resolve(); // retired or closed: fsynced then
    if (!this.syncing) {
      this.dirty = false;
      this.syncing = new Promise<void>((resolve, reject) => {
        fs.fdatasync(this.fd, (error) => {
          this.syncing = undefined;
          if (error) reject(error);
          else resolve();
        });
      });
      return this.syncing;
    }
    // A sync is running and may have started before our data was written: queue one more.
    if (!this.syncQueued) {
      this.syncQueued = this.syncing.then(
        () => {
          this.syncQueued = undefined;
          return this.sync();
        },
        () => {
          this.syncQueued = undefined;
          return this.sync();
        },
      );
    }
    return this.syncQueued;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.fd >= 0) {
      fs.fsyncSync(this.fd);
      fs.closeSync(this.fd);
      this.fd = -1;
    }
  }

  /** Everything appended so far is on stable storage when this returns. */
  fsyncNow(): void {
    fs.fsyncSync(this.fd);
    this.dirty = false;
  }

  /**
   * Ends appends to this log after a newer one took over (the caller fsynced it with
   * `fsyncNow()` first): the descriptor is closed once no fdatasync on it is in flight
   * (closing under a running one could hand its descriptor number to another file).
   */
  retire(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const inFlight = [this.syncing, this.syncQueued].map((p) => p?.catch(() => {}));
    return Promise.all(inFlight).then(() => {
      if (this.fd >= 0) fs.closeSync(this.fd);
      this.fd = -1;
    });
  }
}
