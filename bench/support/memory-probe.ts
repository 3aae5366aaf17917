/**
 * Preload that lets a benchmark read a process's memory after a full garbage collection, for
 * benchmarks (never in a deployment):
 *
 *   NODE_OPTIONS="--import tsx --import ./bench/support/memory-probe.ts" MEMORY_PROBE_DIR=/tmp/m node ...
 *
 * On SIGUSR2 the process collects all garbage twice (the inspector's HeapProfiler, so no
 * --expose-gc) and writes `process.memoryUsage()` to MEMORY_PROBE_DIR/<pid>.json (written
 * beside it and renamed, so a reader never sees half a file), with `rssAnon`: the anonymous part
 * of the resident set on Linux. Without the collection, what a process holds for its open
 * sessions is lost in what it allocated lately and has not freed yet.
 *
 * With MEMORY_PROBE_SNAPSHOT_DIR set, each probe also writes a heap snapshot there
 * (`<pid>-<n>.heapsnapshot`; bench/support/heap-snapshot-diff.ts compares two): what the objects
 * that grew between two probes are. Taking one grows the process's resident set for good (about
 * twice the anonymous resident memory per session in the run after): read the heap from such a
 * run, not the resident figures.
 */

import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";
import { writeHeapSnapshot } from "node:v8";

const dir = process.env.MEMORY_PROBE_DIR;
const snapshotDir = process.env.MEMORY_PROBE_SNAPSHOT_DIR;
let probes = 0;
if (dir) {
  const session = new Session();
  session.connect();
  // Two collections: objects with finalizers (sockets, buffers) are freed by the second. Posted
  // one after the other: a post from inside another post's callback never returns (Node 20).
  const collect = (then: () => void) => {
    session.post("HeapProfiler.collectGarbage");
    session.post("HeapProfiler.collectGarbage", then);
  };
  // The resident set also counts pages of the node binary and libraries mapped from files, which
  // the kernel drops and reads back as it likes (a reclaim daemon made the resident set of an
  // unchanged process fall by 6 MB between two reads). Anonymous pages are what the process
  // allocated; without swap they stay resident.
  const anonymousResident = (): number | undefined => {
    try {
      const line = /^RssAnon:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"));
      return line ? Number(line[1]) * 1024 : undefined;
    } catch {
      return undefined;
    }
  };
  process.on("SIGUSR2", () => {
    collect(() => {
      const file = join(dir, `${process.pid}.json`);
      writeFileSync(
        `${file}.part`,
        JSON.stringify({ at: Date.now(), ...process.memoryUsage(), rssAnon: anonymousResident() }),
      );
      if (snapshotDir)
        writeHeapSnapshot(join(snapshotDir, `${process.pid}-${probes}.heapsnapshot`));
      probes++;
      renameSync(`${file}.part`, file);
    });
  });
}
