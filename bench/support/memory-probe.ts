/**
 * Preload that lets a benchmark read a process's memory after a full garbage collection, for
 * benchmarks (never in a deployment):
 *
 *   NODE_OPTIONS="--import tsx --import ./bench/support/memory-probe.ts" MEMORY_PROBE_DIR=/tmp/m node ...
 *
 * On SIGUSR2 the process collects all garbage twice (the inspector's HeapProfiler, so no
 * --expose-gc) and writes `process.memoryUsage()` to MEMORY_PROBE_DIR/<pid>.json (written
 * beside it and renamed, so a reader never sees half a file). Without the collection, what a
 * process holds for its open sessions is lost in what it allocated lately and has not freed yet.
 */

import { renameSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const dir = process.env.MEMORY_PROBE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  // Two collections: objects with finalizers (sockets, buffers) are freed by the second. Posted
  // one after the other: a post from inside another post's callback never returns (Node 20).
  const collect = (then: () => void) => {
    session.post("HeapProfiler.collectGarbage");
    session.post("HeapProfiler.collectGarbage", then);
  };
  process.on("SIGUSR2", () => {
    collect(() => {
      const file = join(dir, `${process.pid}.json`);
      writeFileSync(`${file}.part`, JSON.stringify({ at: Date.now(), ...process.memoryUsage() }));
      renameSync(`${file}.part`, file);
    });
  });
}
