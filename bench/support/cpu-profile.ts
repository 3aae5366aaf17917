/**
 * Preload that CPU-profiles the process it runs in, for benchmarks (Node 20 refuses --cpu-prof in
 * NODE_OPTIONS; --import is allowed):
 *
 *   NODE_OPTIONS="--import tsx --import ./bench/support/cpu-profile.ts" CPU_PROFILE_DIR=/tmp/prof node ...
 *
 * The profile (Chrome DevTools format, 1 ms samples) is written to CPU_PROFILE_DIR when the
 * process exits normally (a SIGKILL leaves none).
 */

import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: 1000 });
  session.post("Profiler.start");
  // An in-process inspector session answers synchronously, so this works in an exit handler.
  process.on("exit", () => {
    session.post("Profiler.stop", (error, result) => {
      if (error) return;
      const file = join(
        dir,
        `${new Date().toISOString().replace(/[:.]/g, "-")}.${process.pid}.cpuprofile`,
      );
      writeFileSync(file, JSON.stringify(result.profile));
    });
  });
}
