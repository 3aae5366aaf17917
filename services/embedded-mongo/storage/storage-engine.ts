/**
 * The committed state of every database, and its durability: each mutation is applied in
 * memory and queued as a log operation; `commit()` appends everything queued as one
 * write-ahead-log record before the write is acknowledged. Recovery loads the newest
 * snapshot and replays the logs written after it.
 *
 * Compaction: once the logs since the last snapshot pass `compactBytes`, the current log is
 * closed and a new one started (synchronously, between two commits), and a snapshot of the
 * state at that instant is written in the background while commits go on into the new log.
 * Snapshot N+1 is the state at the start of wal-N+1, so files are replaced in this order:
 * wal-N+1 created and the directory fsynced; snapshot-N+1 written to a temporary file,
 * fsynced, renamed, directory fsynced; only then snapshot-N and wal-N deleted. A crash at
 * any point leaves a newest complete snapshot and the unbroken run of logs after it.
 * A failed snapshot costs nothing but disk: the store keeps serving from its logs (one more
 * file per attempt) and tries again after a backoff.
 */
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { type Binary, BSON } from "bson";
import type { Logger } from "pino";
import { type Doc, idKeyOf } from "../bson-values.js";
import { MongoCommandError } from "../errors.js";
import { Collection } from "./collection.js";
import type { IndexSpec } from "./collection-index.js";
import { type FailPoints, noFailPoints } from "./fail-points.js";
import { acquireDirLock, type DirLock } from "./lock-file.js";
import { CorruptFileError } from "./record-file.js";
import { readSnapshot, type SnapshotContent, syncDir, writeSnapshot } from "./snapshot-file.js";
import { type FsyncPolicy, WriteAheadLog } from "./write-ahead-log.js";

export interface StorageOptions {
  dataDir: string;
  fsync: FsyncPolicy;
  fsyncIntervalMs: number;
  /** Start a new snapshot once the logs since the last one hold more than this many bytes. */
  compactBytes: number;
  /** Wait before retrying a failed compaction; doubles per consecutive failure, up to 5 min. */
  compactRetryMs: number;
  /** Test-only fail points in the compaction path (fail-points.ts). */
  failPoints?: FailPoints;
  logger: Logger;
}

const MAX_COMPACT_RETRY_MS = 5 * 60_000;

type LogOp =
  | { o: "i"; ns: string; d: Doc }
  | { o: "u"; ns: string; d: Doc }
  | { o: "d"; ns: string; id: unknown }
  | { o: "cc"; db: string; name: string; opts: Doc; uuid: Binary }
  | { o: "dc"; ns: string }
  | { o: "ci"; ns: string; spec: IndexSpec }
  | { o: "di"; ns: string; name: string }
  | { o: "dd"; db: string };

const walName = (generation: number): string => `wal-${String(generation).padStart(8, "0")}.log`;
const snapshotName = (generation: number): string =>
  `snapshot-${String(generation).padStart(8, "0")}.bson`;
const WAL_FILE = /^wal-(\d+)\.log$/;
const SNAPSHOT_FILE = /^snapshot-(\d+)\.bson$/;

function generationsOf(files: string[], pattern: RegExp): number[] {
  return files
    .map((f) => pattern.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

export class StorageEngine {
  readonly collections = new Map<string, Collection>();
  private seq = 0;
  private pending: Uint8Array[] = [];
  private wal!: WriteAheadLog;
  private lock!: DirLock;
  /** Generation of the newest complete snapshot (0: none yet). */
  private snapshotGeneration = 0;
  /** Generation of the log being appended to; the logs from snapshotGeneration on are live. */
  private walGeneration = 0;
  /** Bytes in the live logs before the current one (those a failed snapshot left). */
  private olderLogBytes = 0;
  /** Size of the newest snapshot file. */
  private lastSnapshotBytes = 0;
  private replaying = false;
  private compaction: Promise<void> | undefined;
  private compactionFailures = 0;
  private retryCompactionAt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private closing = false;
  private readonly failPoints: FailPoints;

  private constructor(private readonly options: StorageOptions) {
    this.failPoints = options.failPoints ?? noFailPoints;
  }

  static open(options: StorageOptions): StorageEngine {
    const engine = new StorageEngine(options);
    engine.recover();
    return engine;
  }

  get sequence(): number {
    return this.seq;
  }

  nextVersion(): number {
    return ++this.seq;
  }

  getCollection(db: string, name: string): Collection | undefined {
    return this.collections.get(`${db}.${name}`);
  }

  collectionsOf(db: string): Collection[] {
    return [...this.collections.values()].filter((c) => c.db === db);
  }

  databaseNames(): string[] {
    return [...new Set([...this.collections.values()].map((c) => c.db))].sort();
  }

  // ---- mutations: apply in memory, queue for the log ----

  createCollection(db: string, name: string, opts: Doc = {}, uuid?: Binary): Collection {
    const ns = `${db}.${name}`;
    if (this.collections.has(ns)) {
      throw new MongoCommandError("NamespaceExists", `Collection ${ns} already exists.`);
    }
    const collection = new Collection(db, name, opts, uuid);
    this.collections.set(ns, collection);
    this.journal({ o: "cc", db, name, opts, uuid: collection.uuid });
    return collection;
  }

  ensureCollection(db: string, name: string): Collection {
    return this.getCollection(db, name) ?? this.createCollection(db, name);
  }

  dropCollection(collection: Collection): void {
    this.collections.delete(collection.ns);
    this.journal({ o: "dc", ns: collection.ns });
  }

  dropDatabase(db: string): void {
    for (const c of this.collectionsOf(db)) this.collections.delete(c.ns);
    this.journal({ o: "dd", db });
  }

  createIndex(collection: Collection, spec: IndexSpec): boolean {
    const created = collection.createIndex(spec);
    if (created) this.journal({ o: "ci", ns: collection.ns, spec });
    return created;
  }

  dropIndex(collection: Collection, name: string): void {
    collection.dropIndex(name);
    this.journal({ o: "di", ns: collection.ns, name });
  }

  /**
   * Set by the session registry: the snapshot of the oldest open transaction, while there is
   * one. Prior versions of documents are kept from then on, so transactions read their snapshot.
   */
  historyFloor: () => number | undefined = () => undefined;

  /** `checked: false`: a committing transaction's write set, checked as a whole beforehand. */
  insertDoc(collection: Collection, doc: Doc, checked = true): void {
    const version = this.nextVersion();
    collection.insert(doc, version, checked);
    if (this.historyFloor() !== undefined) collection.remember(idKeyOf(doc._id), null, 0, version);
    this.journal({ o: "i", ns: collection.ns, d: doc });
  }

  replaceDoc(collection: Collection, idKey: string, doc: Doc, checked = true): void {
    const prior = collection.docs.get(idKey);
    const priorDoc = prior?.doc;
    const priorVersion = prior?.version ?? 0;
    const version = this.nextVersion();
    collection.replace(idKey, doc, version, checked);
    if (this.historyFloor() !== undefined) {
      collection.remember(idKey, priorDoc ?? null, priorVersion, version);
    }
    this.journal({ o: "u", ns: collection.ns, d: doc });
  }

  deleteDoc(collection: Collection, idKey: string): Doc | undefined {
    const priorVersion = collection.docs.get(idKey)?.version ?? 0;
    const removed = collection.remove(idKey);
    if (removed) {
      const version = this.nextVersion();
      if (this.historyFloor() !== undefined)
        collection.remember(idKey, removed, priorVersion, version);
      this.journal({ o: "d", ns: collection.ns, id: removed._id });
    }
    return removed;
  }

  /** Drops document versions no open transaction can read any more. */
  pruneHistory(): void {
    const floor = this.historyFloor();
    for (const collection of this.collections.values()) collection.pruneHistory(floor);
  }

  private journal(op: LogOp): void {
    if (this.replaying) return;
    this.pending.push(BSON.serialize(op));
  }

  // ---- durability ----

  /**
   * Appends every queued operation as one log record (so a multi-document transaction is
   * all-or-nothing on recovery). Resolves when the write may be acknowledged.
   */
  async commit(journaled = false): Promise<void> {
    this.assertHealthy();
    try {
      if (this.pending.length > 0) {
        const payload = Buffer.concat(this.pending);
        this.pending = [];
        this.wal.append(payload);
        this.maybeCompact();
      }
      if (journaled || this.wal.syncsEveryWrite) await this.wal.sync();
    } catch (error) {
      this.logFailed(error);
      this.assertHealthy();
    }
  }

  /**
   * Memory now holds writes the log may not: refuse everything until a restart recovers the
   * last consistent state from disk (mongod stops on journal failures too).
   */
  private logFailed(error: unknown): void {
    this.failure = error as Error;
    this.options.logger.fatal(
      { err: error },
      "writing the log failed; the server must be restarted",
    );
  }

  /** Set once the log could not be written: no command is served after that. */
  failure: Error | undefined;

  assertHealthy(): void {
    if (this.failure) {
      throw new MongoCommandError(
        "InternalError",
        `storage failed (${this.failure.message}); restart the server to recover from its data directory`,
      );
    }
  }

  /** Bytes in the logs recovery would replay (everything since the newest snapshot). */
  get logBytes(): number {
    return this.olderLogBytes + this.wal.size;
  }

  /**
   * Log bytes that trigger a snapshot: `compactBytes`, or the size of the last snapshot if
   * larger, so that rewriting a large data set is paid for by as many bytes of new writes
   * (the disk writes at most about twice what clients write, however small the threshold).
   */
  get compactionThreshold(): number {
    return Math.max(this.options.compactBytes, this.lastSnapshotBytes);
  }

  /** Resolves when no compaction is running (tests, benchmarks, shutdown). */
  async compactionIdle(): Promise<void> {
    while (this.compaction) await this.compaction;
  }

  /** maybeCompact() outside a commit: after a compaction, and when a retry is due. */
  private compactIfDue(): void {
    try {
      this.maybeCompact();
    } catch (error) {
      this.logFailed(error);
    }
  }

  /**
   * Starts a compaction when the logs are past the threshold and none is running or backing
   * off. Throws only when the current log cannot be written or fsynced (fatal, as in commit).
   */
  private maybeCompact(): void {
    if (this.compaction || this.closing || this.failure) return;
    if (this.logBytes <= this.compactionThreshold) return;
    if (performance.now() < this.retryCompactionAt) return;
    const started = performance.now();
    const next = this.walGeneration + 1;
    // Whatever is applied in memory goes into the current log first (the snapshot holds it),
    // and the log is made durable before a newer one exists: after any crash, only the
    // newest log can end in a torn record. A failure here is fatal, as in commit().
    if (this.pending.length > 0) this.wal.append(Buffer.concat(this.pending.splice(0)));
    this.wal.fsyncNow();
    let fresh: WriteAheadLog;
    const dir = this.options.dataDir;
    const freshFile = path.join(dir, walName(next));
    try {
      this.failPoints("compaction.rotate");
      fresh = WriteAheadLog.create(freshFile, this.options.fsync, this.options.fsyncIntervalMs);
    } catch (error) {
      this.compactionFailed(error, next);
      return;
    }
    try {
      syncDir(dir);
    } catch (error) {
      fresh.close();
      fs.rmSync(freshFile, { force: true });
      this.compactionFailed(error, next);
      return;
    }
    this.wal.retire().catch(() => {});
    this.olderLogBytes += this.wal.size;
    this.wal = fresh;
    this.walGeneration = next;
    this.compaction = this.snapshotInBackground(this.captureState(next), started).finally(() => {
      this.compaction = undefined;
    });
  }

  /** The committed state right now, by reference: stored documents are never mutated. */
  private captureState(generation: number): SnapshotContent {
    return {
      generation,
      collections: [...this.collections.values()].map((c) => ({
        db: c.db,
        name: c.name,
        options: c.options,
        uuid: c.uuid,
        indexes: c.secondaryIndexes().map((i) => i.spec),
        docs: Array.from(c.docs.values(), (r) => r.doc),
      })),
    };
  }

  private async snapshotInBackground(content: SnapshotContent, started: number): Promise<void> {
    const generation = content.generation;
    const dir = this.options.dataDir;
    let stats: Awaited<ReturnType<typeof writeSnapshot>>;
    try {
      this.failPoints("compaction.rotated");
      stats = await writeSnapshot(path.join(dir, snapshotName(generation)), content, {
        checkpoint: (stage) =>
          this.failPoints(stage === "record" ? "snapshot.record" : "snapshot.synced"),
      });
    } catch (error) {
      this.compactionFailed(error, generation);
      return;
    }
    // The snapshot is durable: the older snapshot and every log before wal-<generation> are
    // now redundant. Deleting them may fail without harm (recovery deletes them too).
    this.snapshotGeneration = generation;
    this.lastSnapshotBytes = stats.bytes;
    this.olderLogBytes = 0;
    this.compactionFailures = 0;
    this.retryCompactionAt = 0;
    try {
      this.failPoints("snapshot.renamed");
      this.removeFilesBefore(generation);
    } catch (error) {
      this.options.logger.warn({ err: error, generation }, "could not delete replaced files");
    }
    this.options.logger.info(
      {
        generation,
        ms: Math.round(performance.now() - started),
        bytes: stats.bytes,
        docs: stats.docs,
      },
      "snapshot written, log compacted",
    );
    // Writes that went on meanwhile may have filled the new log already.
    setImmediate(() => this.compactIfDue());
  }

  private compactionFailed(error: unknown, generation: number): void {
    this.compactionFailures++;
    const base = this.options.compactRetryMs;
    const delay = Math.min(
      base * 2 ** (this.compactionFailures - 1),
      Math.max(base, MAX_COMPACT_RETRY_MS),
    );
    this.retryCompactionAt = performance.now() + delay;
    // Retried even if no write comes (a store restarted on a long log, then idle).
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryCompactionAt = 0;
      this.compactIfDue();
    }, delay);
    this.retryTimer.unref();
    this.options.logger.error(
      {
        err: error,
        generation,
        failures: this.compactionFailures,
        retryInMs: delay,
        logBytes: this.logBytes,
        logFiles: this.walGeneration - this.snapshotGeneration + 1,
      },
      "snapshot failed; still serving from the log, compaction will be retried",
    );
  }

  private removeFilesBefore(generation: number): void {
    const dir = this.options.dataDir;
    const files = fs.readdirSync(dir);
    for (const g of generationsOf(files, SNAPSHOT_FILE)) {
      if (g < generation) fs.rmSync(path.join(dir, snapshotName(g)), { force: true });
    }
    for (const g of generationsOf(files, WAL_FILE)) {
      if (g < generation) fs.rmSync(path.join(dir, walName(g)), { force: true });
    }
  }

  async close(): Promise<void> {
    if (!this.wal || this.closing) return;
    this.closing = true;
    clearTimeout(this.retryTimer);
    // A running snapshot is finished (or fails) first: the directory is left compacted.
    await this.compactionIdle();
    if (this.pending.length > 0) this.wal.append(Buffer.concat(this.pending.splice(0)));
    await this.wal.sync();
    this.wal.close();
    this.lock.release();
  }

  // ---- recovery ----

  private recover(): void {
    const { dataDir, logger } = this.options;
    fs.mkdirSync(dataDir, { recursive: true });
    this.lock = acquireDirLock(dataDir);
    try {
      const files = fs.readdirSync(dataDir);
      for (const f of files) {
        if (!f.endsWith(".tmp")) continue;
        try {
          fs.rmSync(path.join(dataDir, f), { force: true });
        } catch (error) {
          logger.warn({ err: error, file: f }, "could not remove a leftover temporary file");
        }
      }
      const snapshots = generationsOf(files, SNAPSHOT_FILE);
      const base = snapshots.at(-1) ?? 0;
      // The logs recovery needs: wal-<base> and each one after it, without a gap.
      const chain = generationsOf(files, WAL_FILE).filter((g) => g >= base);
      chain.forEach((g, i) => {
        if (g === base + i) return;
        throw new CorruptFileError(
          dataDir,
          0,
          i === 0
            ? `log ${walName(g)} is newer than the newest snapshot${snapshots.length > 0 ? ` ${snapshotName(base)}` : ""}: a snapshot or log is missing`
            : `log ${walName(base + i)} is missing between ${walName(base + i - 1)} and ${walName(g)}`,
        );
      });
      this.replaying = true;
      if (snapshots.length > 0) {
        const file = path.join(dataDir, snapshotName(base));
        this.loadSnapshot(file);
        this.lastSnapshotBytes = fs.statSync(file).size;
      }
      let validLength: number | undefined;
      chain.forEach((g, i) => {
        const file = path.join(dataDir, walName(g));
        const last = i === chain.length - 1;
        const result = WriteAheadLog.replay(file, (payload, offset) =>
          this.replayRecord(payload, file, offset),
        );
        if (result.tornTailAt !== undefined) {
          // Only the log being appended to can end in a torn write: an older one was fsynced
          // whole before the next one was created.
          if (!last) {
            throw new CorruptFileError(
              file,
              result.tornTailAt,
              "torn record in a log a newer log follows",
            );
          }
          logger.warn(
            { file, offset: result.tornTailAt },
            "torn last log record (unacknowledged write) cut on recovery",
          );
        }
        if (last) validLength = result.validLength;
        else this.olderLogBytes += result.validLength;
        logger.info({ records: result.records, file }, "log replayed");
      });
      this.replaying = false;
      this.snapshotGeneration = base;
      this.walGeneration = chain.at(-1) ?? base;
      this.wal = WriteAheadLog.open(
        path.join(dataDir, walName(this.walGeneration)),
        this.options.fsync,
        this.options.fsyncIntervalMs,
        validLength,
      );
      this.removeFilesBefore(base);
      // In the background: start-up does not wait for (or fail on) a snapshot.
      this.maybeCompact();
    } catch (error) {
      this.lock.release();
      throw error;
    }
  }

  private loadSnapshot(file: string): void {
    const loaded: Collection[] = [];
    const summary = readSnapshot(file, {
      collection: (info) => {
        const collection = new Collection(info.db, info.name, info.options, info.uuid);
        for (const spec of info.indexes) collection.createIndex(spec);
        this.collections.set(collection.ns, collection);
        loaded.push(collection);
      },
      documents: (ns, docs) => {
        this.collections.get(ns)?.loadDocuments(docs, () => this.nextVersion());
      },
    });
    for (const collection of loaded) collection.finishLoading();
    this.options.logger.info(
      { file, collections: summary.collections, docs: summary.docs },
      "snapshot loaded",
    );
  }

  private replayRecord(payload: Buffer, file: string, recordOffset: number): void {
    let offset = 0;
    while (offset < payload.length) {
      const size = payload.length - offset >= 4 ? payload.readInt32LE(offset) : 0;
      if (size < 5 || offset + size > payload.length) {
        throw new CorruptFileError(file, recordOffset, "malformed operation inside a log record");
      }
      // A copy: bson's Binary values are views of their input, and the payload is a view of
      // the reader's buffer.
      const op = BSON.deserialize(Buffer.from(payload.subarray(offset, offset + size))) as LogOp;
      offset += size;
      this.replayOp(op, file);
    }
  }

  private replayOp(op: LogOp, file: string): void {
    const find = (ns: string): Collection => {
      const c = this.collections.get(ns);
      if (!c) throw new CorruptFileError(file, 0, `log refers to missing collection ${ns}`);
      return c;
    };
    switch (op.o) {
      case "cc":
        this.collections.set(
          `${op.db}.${op.name}`,
          new Collection(op.db, op.name, op.opts, op.uuid),
        );
        return;
      case "dc":
        this.collections.delete(op.ns);
        return;
      case "dd":
        for (const c of this.collectionsOf(op.db)) this.collections.delete(c.ns);
        return;
      case "ci":
        find(op.ns).createIndex(op.spec);
        return;
      case "di":
        find(op.ns).dropIndex(op.name);
        return;
      case "i":
        find(op.ns).insert(op.d, this.nextVersion());
        return;
      case "u": {
        const c = find(op.ns);
        const key = idKeyOf(op.d._id);
        if (c.docs.has(key)) c.replace(key, op.d, this.nextVersion());
        else c.insert(op.d, this.nextVersion());
        return;
      }
      case "d":
        find(op.ns).remove(idKeyOf(op.id));
        this.nextVersion();
        return;
      default:
        throw new CorruptFileError(file, 0, `unknown log operation ${JSON.stringify(op)}`);
    }
  }
}
