import { readdirSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

const LOWEST = 19;

/**
 * Lowers a child's CPU priority to `steps` of niceness below `base` (the parent's), as
 * `nice -n steps` would (at most 19; no privilege needed to go down). On Linux niceness is per
 * thread and a new thread inherits its creator's: the main thread is lowered at once, before node starts its worker threads, and every
 * thread again once the child runs (lowerPriorityOfAllThreads), in case one started first. Best
 * effort: a process that is gone, or a platform without niceness, keeps its priority; the system
 * works the same, only less fairly under load.
 */
export function lowerPriority(pid: number | undefined, steps: number, base: number): void {
  if (pid === undefined || steps === 0) return;
  try {
    const target = Math.min(LOWEST, base + steps);
    if (getPriority(pid) < target) setPriority(pid, target);
  } catch {
    // exited already, or not permitted here
  }
}

/** lowerPriority for every thread of `pid` (Linux: /proc/<pid>/task), from `base` (the parent's). */
export function lowerPriorityOfAllThreads(
  pid: number | undefined,
  steps: number,
  base: number,
): void {
  if (pid === undefined || steps === 0) return;
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    threads = [String(pid)];
  }
  for (const thread of threads) lowerPriority(Number(thread), steps, base);
}
