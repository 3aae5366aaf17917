/**
 * Recovery: the state of a data directory at its last acknowledged write. Loads the newest
 * snapshot, replays the unbroken run of logs after it (oldest first), cuts a torn last record
 * (a write never acknowledged) and opens the newest log to go on appending to. Leftover
 * temporary files and the files the newest snapshot replaced are deleted.
 */
import fs from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import { idKeyOf } from "../bson-values.js";
import { Collection } from "./collection.js";
import {
  generationsOf,
  removeFilesBefore,
  SNAPSHOT_FILE,
  snapshotName,
  WAL_FILE,
  walName,
} from "./data-files.js";
import { forEachLogOp, type LogOp } from "./log-operations.js";
import { CorruptFileError } from "./record-file.js";
import { readSnapshot } from "./snapshot-file.js";
import { type FsyncPolicy, WriteAheadLog } from "./write-ahead-log.js";

/** The engine's state that recovery fills in. */
export interface RecoveryTarget {
  readonly collections: Map<string, Collection>;
  nextVersion(): number;
}

/** Where the log files stand after recovery: what compaction goes on from. */
export interface RecoveredLogs {
  /** Generation of the newest complete snapshot (0: none yet). */
  readonly snapshotGeneration: number;
  /** The log to append to, and its generation. */
  readonly wal: WriteAheadLog;
  readonly walGeneration: number;
  /** Bytes in the live logs before the current one. */
  readonly olderLogBytes: number;
  /** Size of the newest snapshot file. */
  readonly lastSnapshotBytes: number;
}

export interface RecoveryOptions {
  readonly dataDir: string;
  readonly fsync: FsyncPolicy;
  readonly fsyncIntervalMs: number;
  readonly logger: Logger;
}

/** Recovers `target` from the data directory (which the caller has locked). */
export function recoverDataDir(options: RecoveryOptions, target: RecoveryTarget): RecoveredLogs {
  const { dataDir, logger } = options;
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
  const chain = logChain(dataDir, files, base, snapshots.length > 0);
  let lastSnapshotBytes = 0;
  if (snapshots.length > 0) {
    const file = path.join(dataDir, snapshotName(base));
    loadSnapshot(file, target, logger);
    lastSnapshotBytes = fs.statSync(file).size;
  }
  let olderLogBytes = 0;
  let validLength: number | undefined;
  chain.forEach((g, i) => {
    const file = path.join(dataDir, walName(g));
    const last = i === chain.length - 1;
    const result = WriteAheadLog.replay(file, (payload, offset) =>
      forEachLogOp(payload, file, offset, (op) => replayOp(target, op, file)),
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
    else olderLogBytes += result.validLength;
    logger.info({ records: result.records, file }, "log replayed");
  });
  const walGeneration = chain.at(-1) ?? base;
  const wal = WriteAheadLog.open(
    path.join(dataDir, walName(walGeneration)),
    options.fsync,
    options.fsyncIntervalMs,
    validLength,
  );
  removeFilesBefore(dataDir, base);
  return { snapshotGeneration: base, wal, walGeneration, olderLogBytes, lastSnapshotBytes };
}

/** The logs recovery needs: wal-<base> and each one after it, without a gap. */
function logChain(dataDir: string, files: string[], base: number, hasSnapshot: boolean): number[] {
  const chain = generationsOf(files, WAL_FILE).filter((g) => g >= base);
  chain.forEach((g, i) => {
    if (g === base + i) return;
    throw new CorruptFileError(
      dataDir,
      0,
      i === 0
        ? `log ${walName(g)} is newer than the newest snapshot${hasSnapshot ? ` ${snapshotName(base)}` : ""}: a snapshot or log is missing`
        : `log ${walName(base + i)} is missing between ${walName(base + i - 1)} and ${walName(g)}`,
    );
  });
  return chain;
}

function loadSnapshot(file: string, target: RecoveryTarget, logger: Logger): void {
  const loaded: Collection[] = [];
  const summary = readSnapshot(file, {
    collection: (info) => {
      const collection = new Collection(info.db, info.name, info.options, info.uuid);
      for (const spec of info.indexes) collection.createIndex(spec);
      target.collections.set(collection.ns, collection);
      loaded.push(collection);
    },
    documents: (ns, docs) => {
      target.collections.get(ns)?.loadDocuments(docs, () => target.nextVersion());
    },
  });
  for (const collection of loaded) collection.finishLoading();
  logger.info({ file, collections: summary.collections, docs: summary.docs }, "snapshot loaded");
}

function replayOp(target: RecoveryTarget, op: LogOp, file: string): void {
  const { collections } = target;
  const find = (ns: string): Collection => {
    const c = collections.get(ns);
    if (!c) throw new CorruptFileError(file, 0, `log refers to missing collection ${ns}`);
    return c;
  };
  switch (op.o) {
    case "cc":
      collections.set(`${op.db}.${op.name}`, new Collection(op.db, op.name, op.opts, op.uuid));
      return;
    case "dc":
      collections.delete(op.ns);
      return;
    case "dd":
      for (const c of [...collections.values()]) if (c.db === op.db) collections.delete(c.ns);
      return;
    case "ci":
      find(op.ns).createIndex(op.spec);
      return;
    case "di":
      find(op.ns).dropIndex(op.name);
      return;
    case "i":
      find(op.ns).insert(op.d, target.nextVersion());
      return;
    case "u": {
      const c = find(op.ns);
      const key = idKeyOf(op.d._id);
      if (c.docs.has(key)) c.replace(key, op.d, target.nextVersion());
      else c.insert(op.d, target.nextVersion());
      return;
    }
    case "d":
      find(op.ns).remove(idKeyOf(op.id));
      target.nextVersion();
      return;
    default:
      throw new CorruptFileError(file, 0, `unknown log operation ${JSON.stringify(op)}`);
  }
}
