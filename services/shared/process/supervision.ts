/**
 * Signal handling for every process of the system. Run alone (or on Kubernetes), SIGTERM and
 * SIGINT stop the process gracefully. Run under the local launcher (SUPERVISED=1), the launcher
 * orders shutdown itself, so a terminal's Ctrl-C, which reaches the whole process group, is left to
 * it; and if the launcher dies without stopping us, we stop rather than linger as orphans.
 *
 * Whatever asked, the process exits within `hardDeadlineMs`: a graceful stop that hangs must not
 * leave a process behind.
 */
export function onShutdownRequest(
  supervised: boolean,
  stop: (reason: string) => Promise<void>,
  options: {
    hardDeadlineMs: number;
    /** Called when the launcher is gone: stop writing logs (see below). */
    silence: () => void;
    pollMs?: number;
  },
): void {
  let requested = false;
  const request = (reason: string) => {
    if (requested) return;
    requested = true;
    setTimeout(() => process.exit(1), options.hardDeadlineMs).unref();
    stop(reason).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGTERM", () => request("SIGTERM"));
  if (!supervised) {
    process.once("SIGINT", () => request("SIGINT"));
    return;
  }
  process.on("SIGINT", () => undefined);
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    // Our stdout was the launcher's socket. A synchronous logger writing to it with nobody
    // reading spins forever on EAGAIN and blocks the event loop, so stop logging first.
    options.silence();
    for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
    request("launcher exited");
  }, options.pollMs ?? 500);
  timer.unref();
}
