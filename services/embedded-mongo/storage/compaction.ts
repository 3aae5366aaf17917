/**
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
import type { Logger } from "pino";
import type { Collection } from "./collection.js";
import { removeFilesBefore, snapshotName, walName } from "./data-files.js";
import type { FailPoints } from "./fail-points.js";
import type { RecoveredLogs } from "./recovery.js";
import { type SnapshotContent, syncDir, writeSnapshot } from "./snapshot-file.js";
import { type FsyncPolicy, WriteAheadLog } from "./write-ahead-log.js";

const MAX_COMPACT_RETRY_MS = 5 * 60_000;

export interface CompactionOptions {
  readonly dataDir: string;
  readonly fsync: FsyncPolicy;
  readonly fsyncIntervalMs: number;
  /** Start a new snapshot once the logs since the last one hold more than this many bytes. */
  readonly compactBytes: number;
  /** Wait before retrying a failed compaction; doubles per consecutive failure, up to 5 min. */
  readonly compactRetryMs: number;
  readonly failPoints: FailPoints;
  readonly logger: Logger;
}

/** What compaction needs of the engine. */
export interface CompactionHost {
  readonly collections: ReadonlyMap<string, Collection>;
  /** Appends what is applied in memory but not logged yet to `wal` (a failure is fatal). */
  flushPending(wal: WriteAheadLog): void;
  /** Closing, or failed: no compaction starts. */
  isStopped(): boolean;
  /** A write to the current log failed: the engine serves nothing more. */
  logFailed(error: unknown): void;
}

/** The live logs (the one commits append to, and those a failed snapshot left) and their compaction. */
export class Compaction {
  /** The log commits append to; replaced by a new one when a compaction starts. */
  get wal(): WriteAheadLog {
    return this.current;
  }

  private current: WriteAheadLog;
  private snapshotGeneration: number;
  private walGeneration: number;
  private olderLogBytes: number;
  private lastSnapshotBytes: number;
  private running: Promise<void> | undefined;
  private failures = 0;
  private retryAt = 0;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: CompactionOptions,
    private readonly host: CompactionHost,
    recovered: RecoveredLogs,
  ) {
    this.current = recovered.wal;
    this.snapshotGeneration = recovered.snapshotGeneration;
    this.walGeneration = recovered.walGeneration;
    this.olderLogBytes = recovered.olderLogBytes;
    this.lastSnapshotBytes = recovered.lastSnapshotBytes;
  }

  /** Bytes in the logs recovery would replay (everything since the newest snapshot). */
  get logBytes(): number {
    return this.olderLogBytes + this.current.size;
  }

  /**
   * Log bytes that trigger a snapshot: `compactBytes`, or the size of the last snapshot if
   * larger, so that rewriting a large data set is paid for by as many bytes of new writes
   * (the disk writes at most about twice what clients write, however small the threshold).
   */
  get threshold(): number {
    return Math.max(this.options.compactBytes, this.lastSnapshotBytes);
  }

  /** Resolves when no compaction is running (tests, benchmarks, shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** No retry comes after this (shutdown). */
  cancelRetry(): void {
    clearTimeout(this.retryTimer);
  }

  /**
   * Starts a compaction when the logs are past the threshold and none is running or backing
   * off. Throws only when the current log cannot be written or fsynced (fatal, as in commit).
   */
  maybeCompact(): void {
    if (this.running || this.host.isStopped()) return;
    if (this.logBytes <= this.threshold) return;
    if (performance.now() < this.retryAt) return;
    const started = performance.now();
    const next = this.walGeneration + 1;
    // Whatever is applied in memory goes into the current log first (the snapshot holds it),
    // and the log is made durable before a newer one exists: after any crash, only the
    // newest log can end in a torn record. A failure here is fatal, as in commit().
    this.host.flushPending(this.current);
    this.current.fsyncNow();
    let fresh: WriteAheadLog;
    const dir = this.options.dataDir;
    const freshFile = path.join(dir, walName(next));
    try {
      this.options.failPoints("compaction.rotate");
      fresh = WriteAheadLog.create(freshFile, this.options.fsync, this.options.fsyncIntervalMs);
    } catch (error) {
      this.failed(error, next);
      return;
    }
    try {
      syncDir(dir);
    } catch (error) {
      fresh.close();
      fs.rmSync(freshFile, { force: true });
      this.failed(error, next);
      return;
    }
    this.current.retire().catch(() => {});
    this.olderLogBytes += this.current.size;
    this.current = fresh;
    this.walGeneration = next;
    this.running = this.snapshotInBackground(
      captureState(this.host.collections, next),
      started,
    ).finally(() => {
      this.running = undefined;
    });
  }

  /** maybeCompact() outside a commit: after a compaction, and when a retry is due. */
  private compactIfDue(): void {
    try {
      this.maybeCompact();
    } catch (error) {
      this.host.logFailed(error);
    }
  }

  private async snapshotInBackground(content: SnapshotContent, started: number): Promise<void> {
    const generation = content.generation;
    const dir = this.options.dataDir;
    const { failPoints, logger } = this.options;
    let stats: Awaited<ReturnType<typeof writeSnapshot>>;
    try {
      failPoints("compaction.rotated");
      stats = await writeSnapshot(path.join(dir, snapshotName(generation)), content, {
        checkpoint: (stage) =>
          failPoints(stage === "record" ? "snapshot.record" : "snapshot.synced"),
      });
    } catch (error) {
      this.failed(error, generation);
      return;
    }
    // The snapshot is durable: the older snapshot and every log before wal-<generation> are
    // now redundant. Deleting them may fail without harm (recovery deletes them too).
    this.snapshotGeneration = generation;
    this.lastSnapshotBytes = stats.bytes;
    this.olderLogBytes = 0;
    this.failures = 0;
    this.retryAt = 0;
    try {
      failPoints("snapshot.renamed");
      removeFilesBefore(dir, generation);
    } catch (error) {
      logger.warn({ err: error, generation }, "could not delete replaced files");
    }
    logger.info(
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

  private failed(error: unknown, generation: number): void {
    this.failures++;
    const base = this.options.compactRetryMs;
    const delay = Math.min(base * 2 ** (this.failures - 1), Math.max(base, MAX_COMPACT_RETRY_MS));
    this.retryAt = performance.now() + delay;
    // Retried even if no write comes (a store restarted on a long log, then idle).
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryAt = 0;
      this.compactIfDue();
    }, delay);
    this.retryTimer.unref();
    this.options.logger.error(
      {
        err: error,
        generation,
        failures: this.failures,
        retryInMs: delay,
        logBytes: this.logBytes,
        logFiles: this.walGeneration - this.snapshotGeneration + 1,
      },
      "snapshot failed; still serving from the log, compaction will be retried",
    );
  }
}

/** The committed state right now, by reference: stored documents are never mutated. */
function captureState(
  collections: ReadonlyMap<string, Collection>,
  generation: number,
): SnapshotContent {
  return {
    generation,
    collections: [...collections.values()].map((c) => ({
      db: c.db,
      name: c.name,
      options: c.options,
      uuid: c.uuid,
      indexes: c.secondaryIndexes().map((i) => i.spec),
      docs: Array.from(c.docs.values(), (r) => r.doc),
    })),
  };
}
