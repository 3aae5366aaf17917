/**
 * Preload that samples what the process it runs in allocates, for benchmarks (what makes the
 * garbage the collector then spends its time on; a CPU profile shows the collector, not who fed
 * it):
 *
 *   NODE_OPTIONS="--import tsx --import ./bench/support/allocation-profile.ts" ALLOCATION_PROFILE_DIR=/tmp/alloc node ...
 *
 * Sampling starts ALLOCATION_PROFILE_DELAY_MS (default 0) after start-up, so that loading the
 * modules does not fill the profile, and keeps objects the collector has already freed (most of
 * a busy service's allocation is short-lived). The profile (Chrome DevTools `.heapprofile`: bytes
 * allocated by call stack, one sample every 16 KB on average) is written to ALLOCATION_PROFILE_DIR
 * when the process exits normally.
 */

import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const dir = process.env.ALLOCATION_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  const start = () =>
    session.post("HeapProfiler.startSampling", {
      samplingInterval: 16_384,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  const delay = Number(process.env.ALLOCATION_PROFILE_DELAY_MS ?? 0);
  if (!Number.isFinite(delay) || delay < 0) {
    process.stderr.write("allocation-profile: ALLOCATION_PROFILE_DELAY_MS must be 0 or more ms\n");
    process.exit(2);
  }
  let started = delay <= 0;
  if (started) start();
  else
    setTimeout(() => {
      started = true;
      start();
    }, delay).unref();
  // An in-process inspector session answers synchronously, so this works in an exit handler.
  process.on("exit", () => {
    if (!started) return;
    session.post("HeapProfiler.stopSampling", (error, result) => {
      if (error) return;
      const file = join(dir, `${process.pid}.heapprofile`);
      writeFileSync(file, JSON.stringify(result.profile));
    });
  });
}
