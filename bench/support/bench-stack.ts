import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServiceName, type Stack, startStack } from "../../deploy/local/stack.js";
import { cpuSeconds } from "./process-stats.js";
import { profilingEnv } from "./profiling.js";

/**
 * The whole system on free ports and a temporary data directory, for a benchmark that measures
 * it from the outside (every process at one priority, LOG_LEVEL=info, detection without a
 * per-project session limit). `profiled` processes write CPU profiles into `profileDir`.
 */
export async function startBenchStack(options: {
  readonly name: string;
  readonly profileDir?: string;
  readonly profiled: readonly (ServiceName | "gateway")[];
}): Promise<{ stack: Stack; stop(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), `mds-${options.name}-`));
  if (options.profileDir) await mkdir(options.profileDir, { recursive: true });
  const profiling = options.profileDir ? profilingEnv(options.profileDir) : {};
  const env = (name: ServiceName | "gateway") => (options.profiled.includes(name) ? profiling : {});
  const stack = await startStack({
    dataDir: join(root, "mongo"),
    stateDir: root,
    startTimeoutMs: 120_000,
    ports: "ephemeral",
    env: { LOG_LEVEL: "info" },
    serviceEnv: {
      detection: { DETECTION_MAX_ACTIVE_SESSIONS_PER_PROJECT: "1000000", ...env("detection") },
      auth: env("auth"),
      catalogue: env("catalogue"),
      authoring: env("authoring"),
      gateway: env("gateway"),
    },
    sink: () => {},
  });
  return {
    stack,
    async stop() {
      await stack.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** CPU seconds used so far by each process of the stack, and by this one as `generator`. */
export function systemCpu(stack: Stack): Map<string, number> {
  const used = process.cpuUsage();
  return new Map([
    ...stack.processes.map((p): [string, number] => [p.name, cpuSeconds(p.child.pid)]),
    ["generator", (used.user + used.system) / 1e6],
  ]);
}

/** What the idle system burns (sweepers, presence, metrics): CPU seconds a second, per process. */
export async function idleCpuRates(stack: Stack, ms = 3000): Promise<Map<string, number>> {
  const before = systemCpu(stack);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const seconds = (performance.now() - started) / 1000;
  const rates = new Map<string, number>();
  for (const [name, used] of systemCpu(stack)) {
    rates.set(name, (used - (before.get(name) ?? 0)) / seconds);
  }
  return rates;
}

/** CPU ms per item, per process, between two readings `seconds` apart, the idle rate taken off. */
export function busyMsPerItem(
  before: Map<string, number>,
  after: Map<string, number>,
  idle: Map<string, number>,
  seconds: number,
  items: number,
): Record<string, number> {
  const busy: Record<string, number> = {};
  for (const [name, used] of after) {
    const cpu = used - (before.get(name) ?? 0) - (idle.get(name) ?? 0) * seconds;
    busy[name] = (1000 * Math.max(0, cpu)) / items;
  }
  return busy;
}
