/**
 * The committed state of every database, and its durability: each mutation is applied in
 * memory and queued as a log operation; `commit()` appends everything queued as one
 * write-ahead-log record before the write is acknowledged. Opening recovers the state from the
 * data directory (recovery.ts); the logs are compacted into snapshots as they grow
 * (compaction.ts).
 */
import fs from "node:fs";
import type { Binary } from "bson";
import type { Logger } from "pino";
import { type Doc, idKeyOf } from "../bson-values.js";
import { MongoCommandError } from "../errors.js";
import { Collection } from "./collection.js";
import type { IndexSpec } from "./collection-index.js";
import { Compaction } from "./compaction.js";
import { type FailPoints, noFailPoints } from "./fail-points.js";
import { acquireDirLock, type DirLock } from "./lock-file.js";
import { encodeDocumentOp, encodeLogOp, type LogOp } from "./log-operations.js";
import { recoverDataDir } from "./recovery.js";
import type { FsyncPolicy, WriteAheadLog } from "./write-ahead-log.js";

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

export class StorageEngine {
  readonly collections = new Map<string, Collection>();
  private seq = 0;
  private pending: Uint8Array[] = [];
  private compaction!: Compaction;
  private lock!: DirLock;
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

  /**
   * `checked: false`: a committing transaction's write set, checked as a whole beforehand.
   * `encoded`: the document's BSON when the caller has it (document-size.ts), logged as is.
   */
  insertDoc(collection: Collection, doc: Doc, checked = true, encoded?: Uint8Array): void {
    const version = this.nextVersion();
    collection.insert(doc, version, checked);
    if (this.historyFloor() !== undefined) collection.remember(idKeyOf(doc._id), null, 0, version);
    this.journalDocument("i", collection.ns, doc, encoded);
  }

  replaceDoc(
    collection: Collection,
    idKey: string,
    doc: Doc,
    checked = true,
    encoded?: Uint8Array,
  ): void {
    const prior = collection.docs.get(idKey);
    const priorDoc = prior?.doc;
    const priorVersion = prior?.version ?? 0;
    const version = this.nextVersion();
    collection.replace(idKey, doc, version, checked);
    if (this.historyFloor() !== undefined) {
      collection.remember(idKey, priorDoc ?? null, priorVersion, version);
    }
    this.journalDocument("u", collection.ns, doc, encoded);
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
    this.pending.push(encodeLogOp(op));
  }

  /** An insert or update, around the document's BSON when the caller already serialized it. */
  private journalDocument(o: "i" | "u", ns: string, doc: Doc, encoded?: Uint8Array): void {
    this.pending.push(encoded ? encodeDocumentOp(o, ns, encoded) : encodeLogOp({ o, ns, d: doc }));
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
        this.compaction.wal.append(payload);
        this.compaction.maybeCompact();
      }
      if (journaled || this.compaction.wal.syncsEveryWrite) await this.compaction.wal.sync();
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
    return this.compaction.logBytes;
  }

  /** Log bytes that trigger a snapshot (Compaction.threshold). */
  get compactionThreshold(): number {
    return this.compaction.threshold;
  }

  /** Resolves when no compaction is running (tests, benchmarks, shutdown). */
  async compactionIdle(): Promise<void> {
    await this.compaction.idle();
  }

  async close(): Promise<void> {
    if (!this.compaction || this.closing) return;
    this.closing = true;
    this.compaction.cancelRetry();
    // A running snapshot is finished (or fails) first: the directory is left compacted.
    await this.compaction.idle();
    const wal = this.compaction.wal;
    this.flushPending(wal);
    await wal.sync();
    wal.close();
    this.lock.release();
  }

  /** Appends what is applied in memory but not logged yet (compaction, before it rotates). */
  private flushPending(wal: WriteAheadLog): void {
    if (this.pending.length > 0) wal.append(Buffer.concat(this.pending.splice(0)));
  }

  private recover(): void {
    const { dataDir, logger } = this.options;
    fs.mkdirSync(dataDir, { recursive: true });
    this.lock = acquireDirLock(dataDir);
    try {
      const recovered = recoverDataDir(this.options, this);
      this.compaction = new Compaction(
        { ...this.options, failPoints: this.failPoints, logger },
        {
          collections: this.collections,
          flushPending: (wal) => this.flushPending(wal),
          isStopped: () => this.closing || this.failure !== undefined,
          logFailed: (error) => this.logFailed(error),
        },
        recovered,
      );
      // In the background: start-up does not wait for (or fail on) a snapshot.
      this.compaction.maybeCompact();
    } catch (error) {
      this.lock.release();
      throw error;
    }
  }
}
