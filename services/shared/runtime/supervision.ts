/**
 * Signal handling for every process of the system. Run alone (or on Kubernetes), SIGTERM and
 * SIGINT stop the process gracefully. Run under the local launcher (SUPERVISED=1), the launcher
 * orders shutdown itself, so a terminal's Ctrl-C, which reaches the whole process group, is left to
 * it; and if the launcher dies without stopping us, we stop rather than linger as orphans.
 */
export function onShutdownRequest(
  supervised: boolean,
  stop: (reason: string) => void,
  pollMs = 500,
): void {
  process.once("SIGTERM", () => stop("SIGTERM"));
  if (supervised) {
    process.on("SIGINT", () => undefined);
    const parent = process.ppid;
    const timer = setInterval(() => {
      if (process.ppid !== parent) {
        clearInterval(timer);
        stop("launcher exited");
      }
    }, pollMs);
    timer.unref();
  } else {
    process.once("SIGINT", () => stop("SIGINT"));
  }
}
