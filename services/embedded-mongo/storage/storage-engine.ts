/**
 * The committed state of every database, and its durability: each mutation is applied in
 * memory and queued as a log operation; `commit()` appends everything queued as one
 * write-ahead-log record before the write is acknowledged. Recovery loads the newest
 * snapshot and replays the log written after it; compaction writes a new snapshot and
 * starts an empty log once the log grows past a threshold.
 */
import fs from "node:fs";
import path from "node:path";
import { type Binary, BSON } from "bson";
import type { Logger } from "pino";
import { type Doc, idKeyOf } from "../bson-values.js";
import { MongoCommandError } from "../errors.js";
import { Collection } from "./collection.js";
import type { IndexSpec } from "./collection-index.js";
import { acquireDirLock, type DirLock } from "./lock-file.js";
import { CorruptFileError } from "./record-file.js";
import { readSnapshot, syncDir, writeSnapshot } from "./snapshot-file.js";
import { type FsyncPolicy, WriteAheadLog } from "./write-ahead-log.js";

export interface StorageOptions {
  dataDir: string;
  fsync: FsyncPolicy;
  fsyncIntervalMs: number;
  /** Start a new snapshot once the log is larger than this many bytes. */
  compactBytes: number;
  logger: Logger;
}

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

export class StorageEngine {
  readonly collections = new Map<string, Collection>();
  private seq = 0;
  private pending: Uint8Array[] = [];
  private wal!: WriteAheadLog;
  private lock!: DirLock;
  private generation = 0;
  private replaying = false;
  private compacting = false;

  private constructor(private readonly options: StorageOptions) {}

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

  insertDoc(collection: Collection, doc: Doc): void {
    const version = this.nextVersion();
    collection.insert(doc, version);
    if (this.historyFloor() !== undefined) collection.remember(idKeyOf(doc._id), null, 0, version);
    this.journal({ o: "i", ns: collection.ns, d: doc });
  }

  replaceDoc(collection: Collection, idKey: string, doc: Doc): void {
    const prior = collection.docs.get(idKey);
    const priorDoc = prior?.doc;
    const priorVersion = prior?.version ?? 0;
    const version = this.nextVersion();
    collection.replace(idKey, doc, version);
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
        if (this.wal.size > this.options.compactBytes && !this.compacting) {
          this.compact();
          return;
        }
      }
      if (journaled || this.wal.syncsEveryWrite) await this.wal.sync();
    } catch (error) {
      // Memory now holds writes the log may not: refuse everything until a restart recovers
      // the last consistent state from disk (mongod stops on journal failures too).
      this.failure = error as Error;
      this.options.logger.fatal(
        { err: error },
        "writing the log failed; the server must be restarted",
      );
      this.assertHealthy();
    }
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

  /** Writes a snapshot of the committed state and starts a new, empty log. */
  compact(): void {
    this.compacting = true;
    try {
      const started = Date.now();
      if (this.pending.length > 0) this.wal.append(Buffer.concat(this.pending.splice(0)));
      const next = this.generation + 1;
      const dir = this.options.dataDir;
      writeSnapshot(path.join(dir, snapshotName(next)), {
        generation: next,
        collections: [...this.collections.values()].map((c) => ({
          db: c.db,
          name: c.name,
          options: c.options,
          uuid: c.uuid,
          indexes: c.secondaryIndexes().map((i) => i.spec),
          docs: [...c.docs.values()].map((r) => r.doc),
        })),
      });
      this.wal.close();
      this.wal = WriteAheadLog.open(
        path.join(dir, walName(next)),
        this.options.fsync,
        this.options.fsyncIntervalMs,
      );
      syncDir(dir);
      const previous = this.generation;
      this.generation = next;
      fs.rmSync(path.join(dir, walName(previous)), { force: true });
      fs.rmSync(path.join(dir, snapshotName(previous)), { force: true });
      this.options.logger.info(
        { generation: next, ms: Date.now() - started },
        "snapshot written, log compacted",
      );
    } finally {
      this.compacting = false;
    }
  }

  async close(): Promise<void> {
    if (!this.wal) return;
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
      for (const f of files)
        if (f.endsWith(".tmp")) fs.rmSync(path.join(dataDir, f), { force: true });
      const generations = (prefix: string): number[] =>
        files
          .map((f) => new RegExp(`^${prefix}-(\\d+)\\.`).exec(f))
          .filter((m): m is RegExpExecArray => m !== null)
          .map((m) => Number(m[1]))
          .sort((a, b) => a - b);
      const snapshots = generations("snapshot");
      const wals = generations("wal");
      const generation = snapshots.at(-1) ?? 0;
      if (wals.some((g) => g > generation)) {
        throw new CorruptFileError(
          dataDir,
          0,
          `log ${walName(wals.at(-1)!)} is newer than the newest snapshot: a snapshot is missing`,
        );
      }
      this.replaying = true;
      if (snapshots.length > 0) this.loadSnapshot(path.join(dataDir, snapshotName(generation)));
      const walFile = path.join(dataDir, walName(generation));
      let validLength: number | undefined;
      if (fs.existsSync(walFile)) {
        const scan = WriteAheadLog.read(walFile);
        for (const record of scan.records) this.replayRecord(record, walFile);
        validLength = scan.validLength;
        if (scan.tornTailAt !== undefined) {
          logger.warn(
            { file: walFile, offset: scan.tornTailAt },
            "torn last log record (unacknowledged write) cut on recovery",
          );
        }
        logger.info({ records: scan.records.length, file: walFile }, "log replayed");
      }
      this.replaying = false;
      this.generation = generation;
      this.wal = WriteAheadLog.open(
        walFile,
        this.options.fsync,
        this.options.fsyncIntervalMs,
        validLength,
      );
      for (const g of snapshots) if (g < generation) fs.rmSync(path.join(dataDir, snapshotName(g)));
      for (const g of wals) if (g < generation) fs.rmSync(path.join(dataDir, walName(g)));
      if (this.wal.size > this.options.compactBytes) this.compact();
    } catch (error) {
      this.lock.release();
      throw error;
    }
  }

  private loadSnapshot(file: string): void {
    const content = readSnapshot(file);
    for (const c of content.collections) {
      const collection = new Collection(c.db, c.name, c.options, c.uuid);
      for (const spec of c.indexes) collection.createIndex(spec);
      collection.load(c.docs, () => this.nextVersion());
      this.collections.set(collection.ns, collection);
    }
    this.options.logger.info({ file, collections: content.collections.length }, "snapshot loaded");
  }

  private replayRecord(payload: Buffer, file: string): void {
    let offset = 0;
    while (offset < payload.length) {
      const size = payload.readInt32LE(offset);
      if (size < 5 || offset + size > payload.length) {
        throw new CorruptFileError(file, offset, "malformed operation inside a log record");
      }
      const op = BSON.deserialize(payload.subarray(offset, offset + size)) as LogOp;
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
