import { setTimeout as sleep } from "node:timers/promises";

/**
 * Polls `check` every `intervalMs` until it returns true; rejects once `timeoutMs` has passed
 * without it. An error thrown by `check` rejects at once (wrap the probe to tolerate one). The one
 * polling helper of the tests: wait for what can be observed, never for a fixed time.
 *
 *   await eventually(async () => (await statusOf(id)) === "completed", 5000);
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}
