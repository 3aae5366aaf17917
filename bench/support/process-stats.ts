/**
 * What a long benchmark samples about the processes it runs against (Linux /proc, and the
 * Prometheus text of their admin ports): resident memory, CPU time, metrics, and the size of a
 * data directory.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** Resident set size in bytes (NaN when the process is gone or this is not Linux). */
export function residentBytes(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? Number.NaN : Number(kb) * 1024;
  } catch {
    return Number.NaN;
  }
}

/**
 * The mean of `read()`'s values, by key, sampled every `everyMs` for `ms`: a resident set under
 * steady load is a sawtooth (garbage piles up between collections), so one reading at the end
 * lands anywhere on it; the mean over a window does not.
 */
export async function meanWhile(
  ms: number,
  everyMs: number,
  read: () => Map<string, number>,
): Promise<Map<string, number>> {
  const sums = new Map<string, number>();
  let samples = 0;
  const end = performance.now() + ms;
  for (;;) {
    for (const [key, value] of read()) sums.set(key, (sums.get(key) ?? 0) + value);
    samples += 1;
    const left = end - performance.now();
    if (left <= 0) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(everyMs, left)));
  }
  return new Map([...sums].map(([key, sum]) => [key, sum / samples]));
}

/** CPU seconds (user + system) a process used so far. */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU seconds (user + system) of a process's threads other than its main one, summed over the
 * threads alive now (Linux /proc/<pid>/task): V8's helpers (parallel scavenges, concurrent
 * marking, compilation) and libuv's pool. What the main thread's profile does not show.
 * Threads that ended between two readings are lost; Node's are started once and kept.
 */
export function helperThreadsCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  let ticks = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      if (tid === String(pid)) continue;
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        ticks += Number(fields[11]) + Number(fields[12]);
      } catch {
        // the thread ended meanwhile
      }
    }
  } catch {
    return Number.NaN;
  }
  return ticks / 100;
}

/** Bytes of every file under `dir` (a store's data directory). */
export function directoryBytes(dir: string): number {
  let total = 0;
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of entries) {
    const path = join(dir, name);
    try {
      const stat = statSync(path);
      total += stat.isDirectory() ? directoryBytes(path) : stat.size;
    } catch {
      // removed meanwhile (a compaction replacing files)
    }
  }
  return total;
}

/** Samples of a Prometheus text page: `name{labels}` -> value. */
export type Metrics = ReadonlyMap<string, number>;

export async function scrapeMetrics(adminUrl: string): Promise<Metrics> {
  const metrics = new Map<string, number>();
  try {
    const text = await (await fetch(`${adminUrl}/metrics`)).text();
    for (const line of text.split("\n")) {
      if (line === "" || line.startsWith("#")) continue;
      const space = line.lastIndexOf(" ");
      metrics.set(line.slice(0, space), Number(line.slice(space + 1)));
    }
  } catch {
    // the process is down: an empty page
  }
  return metrics;
}

/**
 * The first sample of metric `name` whose labels contain `labels` (e.g. `result="failed"`),
 * whatever its other labels (services add `app`); NaN when absent.
 */
export function metric(metrics: Metrics, name: string, labels = ""): number {
  for (const [key, value] of metrics) {
    if (!key.startsWith(name)) continue;
    const rest = key.slice(name.length);
    if ((rest === "" || rest.startsWith("{")) && rest.includes(labels)) return value;
  }
  return Number.NaN;
}

/**
 * What the whole machine did so far (Linux /proc/stat and /proc/vmstat): CPU seconds by kind
 * (`nice` is the niced processes' user time, `steal` what the hypervisor gave to others), context
 * switches and page faults. Differences between two readings tell a slow machine from a slow
 * process: a load generator doing the same work but needing more CPU points at the machine.
 * Empty off Linux.
 */
export function machineCounters(): Record<string, number> {
  const counters: Record<string, number> = {};
  try {
    const stat = readFileSync("/proc/stat", "utf8");
    const cpu = /^cpu\s+(.+)$/m.exec(stat)?.[1].trim().split(/\s+/).map(Number) ?? [];
    const kinds = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"];
    kinds.forEach((kind, i) => {
      if (cpu[i] !== undefined) counters[`cpu_${kind}_s`] = cpu[i] / 100;
    });
    const ctxt = /^ctxt\s+(\d+)/m.exec(stat)?.[1];
    if (ctxt !== undefined) counters.context_switches = Number(ctxt);
    const vmstat = readFileSync("/proc/vmstat", "utf8");
    for (const name of ["pgfault", "pgmajfault", "pgpgout", "thp_fault_alloc"]) {
      const value = new RegExp(`^${name}\\s+(\\d+)`, "m").exec(vmstat)?.[1];
      if (value !== undefined) counters[name] = Number(value);
    }
  } catch {
    // not Linux
  }
  return counters;
}

/** `after` minus `before`, counter by counter (rounded to 0.01). */
export function counterDelta(
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [name, value] of Object.entries(after)) {
    if (before[name] !== undefined) delta[name] = Math.round((value - before[name]) * 100) / 100;
  }
  return delta;
}
