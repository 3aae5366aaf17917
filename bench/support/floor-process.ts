/**
 * Floor processes: a benchmark's stand-ins for a service, built from the same libraries with none
 * of our logic, so that the CPU a chain of them spends says what any implementation on those
 * libraries spends here (bench/auth/exchange-floor.bench.ts, bench/detection/live-floor.bench.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface FloorProcess {
  readonly child: ChildProcess;
  /** The port it printed (`listening <port>`). */
  readonly port: number;
  /** CPU seconds it has used so far (Linux /proc). */
  cpuSeconds(): number;
}

/**
 * Starts `file` (a URL of a floor script) with `env`, after `nodeFlags` (those of the process it
 * stands in for: deploy/local/node-flags.ts); resolves once it listens.
 */
export function startFloor(
  file: URL,
  env: Record<string, string>,
  nodeFlags: readonly string[] = [],
): Promise<FloorProcess> {
  const child = spawn(process.execPath, [...nodeFlags, "--import", "tsx", fileURLToPath(file)], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.once("exit", (code) => reject(new Error(`${file.pathname} exited with ${code}`)));
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const port = /listening (\d+)/.exec(out)?.[1];
      if (port) resolve({ child, port: Number(port), cpuSeconds: () => cpuSecondsOf(child.pid) });
    });
  });
}

function cpuSecondsOf(pid: number | undefined): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
