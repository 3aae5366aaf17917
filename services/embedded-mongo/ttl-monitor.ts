/**
 * Deletes documents whose TTL-indexed date field is older than `expireAfterSeconds`, on a
 * fixed interval (mongod's TTL monitor runs every 60 s). Uses the index range, never a scan.
 */
import type { Logger } from "pino";
import { BoundSentinel } from "./bson-values.js";
import { type LockTable, lockKey } from "./sessions/lock-table.js";
import type { StorageEngine } from "./storage/storage-engine.js";

export function startTtlMonitor(
  engine: StorageEngine,
  locks: LockTable,
  intervalMs: number,
  logger: Logger,
) {
  let running = false;
  const sweep = async (): Promise<number> => {
    if (running) return 0;
    running = true;
    let deleted = 0;
    try {
      const now = Date.now();
      for (const collection of [...engine.collections.values()]) {
        for (const index of collection.secondaryIndexes()) {
          const seconds = index.spec.expireAfterSeconds;
          if (seconds === undefined) continue;
          const cutoff = new Date(now - seconds * 1000);
          const dir = index.directions[0];
          const low = dir > 0 ? new BoundSentinel(10, false) : cutoff;
          const high = dir > 0 ? cutoff : new BoundSentinel(10, false);
          const from = index.entries.lowerBound({ key: [low], id: "" });
          const to = index.entries.lowerBound({ key: [high], id: "\uffff" });
          const ids = new Set<string>();
          for (const entry of index.entries.range(from, to)) ids.add(entry.id);
          for (const id of ids) {
            if (locks.ownerOf(lockKey(collection.ns, id))) continue;
            engine.deleteDoc(collection, id);
            deleted++;
          }
        }
      }
      if (deleted > 0) {
        await engine.commit();
        logger.debug({ deleted }, "TTL monitor deleted expired documents");
      }
    } catch (error) {
      logger.error({ err: error }, "TTL monitor sweep failed");
    } finally {
      running = false;
    }
    return deleted;
  };
  const timer = setInterval(() => void sweep(), intervalMs);
  timer.unref();
  return {
    sweep,
    stop: () => clearInterval(timer),
  };
}
