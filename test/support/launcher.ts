/**
 * `npm start` as a user runs it, for tests: package.json's start command in a child process, on
 * free ports (LAUNCHER_PORTS=ephemeral) and a fresh state directory, its terminal output read line
 * by line. Its children are found by their entry points in /proc (Linux), to be killed like a
 * crash would.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** One line of the launcher's output: `[name] level msg key=value ...`, or a plain line. */
export interface LauncherLine {
  readonly text: string;
  /** The process that wrote it (`launcher` for the launcher's own lines), if prefixed. */
  readonly name?: string;
  readonly level?: string;
  readonly msg?: string;
  readonly fields: Readonly<Record<string, string>>;
}

export interface Launcher {
  readonly process: ChildProcess;
  readonly gatewayUrl: string;
  readonly lines: LauncherLine[];
  /** Resolves with the first line (from the start) that matches; rejects after `timeoutMs`. */
  waitForLine(match: (line: LauncherLine) => boolean, timeoutMs: number): Promise<LauncherLine>;
  /** The launcher's own pid (npm's child when started `viaNpm`; -1 if it was not found). */
  launcherPid(): number;
  /** The pid of the running child whose entry point is `entry` (e.g. `services/auth/main.ts`). */
  childPid(entry: string): number | undefined;
  readonly exited: Promise<number | null>;
  /** SIGTERM and wait; removes the state directory. */
  stop(): Promise<number | null>;
}

export const ENTRY_POINTS = {
  "embedded-mongo": "services/embedded-mongo/main.ts",
  auth: "services/auth/main.ts",
  catalogue: "services/catalogue/main.ts",
  authoring: "services/authoring/main.ts",
  detection: "services/detection/main.ts",
  gateway: "gateway/main.ts",
} as const;

/**
 * `viaNpm`: run `npm start` itself (npm and the shell it runs the script in stand between the
 * test and the launcher); by default the start script's node command, run directly.
 */
export async function startLauncher(
  env: Record<string, string> = {},
  options: { viaNpm?: boolean } = {},
): Promise<Launcher> {
  // One temporary directory per run: the store's files in mongo/, the CA and the workload
  // certificates in pki/, the development secrets in secrets/ (npm start keeps them in .data).
  const root = await mkdtemp(join(tmpdir(), "mds-launcher-"));
  const scripts = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).scripts;
  const words = String(scripts.start).split(" ");
  if (words[0] === "exec") words.shift();
  const [command, ...args] = words;
  if (command !== "node") throw new Error(`unexpected start script: ${scripts.start}`);
  const [file, argv] = options.viaNpm ? ["npm", ["start"]] : [process.execPath, args];
  const child = spawn(file, argv, {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      MONGODB_URI: "",
      LAUNCHER_PORTS: "ephemeral",
      EMBEDDED_MONGO_DATA_DIR: join(root, "mongo"),
      LAUNCHER_STATE_DIR: root,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: LauncherLine[] = [];
  const waiters = new Set<() => void>();
  const onLine = (text: string) => {
    lines.push(parseLine(text));
    if (process.env.TEST_LOGS === "1") process.stderr.write(`${text}\n`);
    for (const wake of [...waiters]) wake();
  };
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", onLine);
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", onLine);
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));

  const waitForLine = (match: (line: LauncherLine) => boolean, timeoutMs: number) =>
    new Promise<LauncherLine>((done, fail) => {
      const check = () => {
        const found = lines.find(match);
        if (!found) return;
        clearTimeout(timer);
        waiters.delete(check);
        done(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        fail(new Error(`no such launcher line within ${timeoutMs} ms; last:\n${tail(lines)}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const code = await exited;
    await rm(root, { recursive: true, force: true });
    return code;
  };
  try {
    const ready = await Promise.race([
      waitForLine((line) => line.text.includes("Gateway ready:"), 90_000),
      exited.then((code) => {
        throw new Error(`npm start exited (${code}) before it was ready:\n${tail(lines)}`);
      }),
    ]);
    const gatewayUrl = /Gateway ready:\s+(\S+)/.exec(ready.text)?.[1] as string;
    // Under npm: its child, or its grandchild when a shell runs the script without exec.
    const npmPid = child.pid as number;
    const launcherPid = options.viaNpm
      ? (childPidOf(npmPid, LAUNCHER_ENTRY) ??
        childrenOf(npmPid)
          .map((pid) => childPidOf(pid, LAUNCHER_ENTRY))
          .find((pid) => pid !== undefined) ??
        -1)
      : npmPid;
    return {
      process: child,
      gatewayUrl,
      lines,
      waitForLine,
      launcherPid: () => launcherPid,
      childPid: (entry) => childPidOf(launcherPid, entry),
      exited,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function parseLine(text: string): LauncherLine {
  const match = /^\[([^\]]+)\]\s+(\w+)\s+(.*)$/.exec(text);
  if (!match) return { text, fields: {} };
  const [, name, level, rest] = match;
  const fields: Record<string, string> = {};
  for (const field of rest.matchAll(/(?:^|\s)([a-z_]+)=(\S+)/g)) fields[field[1]] = field[2];
  const msg = rest.split(/\s[a-z_]+=/)[0].trim();
  return { text, name, level, msg, fields };
}

function tail(lines: readonly LauncherLine[]): string {
  return lines
    .slice(-30)
    .map((line) => line.text)
    .join("\n");
}

const LAUNCHER_ENTRY = "deploy/local/start.ts";

/** A direct child of `parent` that is node running `entry` (not a shell whose script names it). */
function childPidOf(parent: number, entry: string): number | undefined {
  for (const pid of childrenOf(parent)) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      const isNode = /(^|\/)node$/.test(command[0]);
      if (isNode && command.some((part) => part.endsWith(entry))) return pid;
    } catch {
      // The process ended while we looked.
    }
  }
  return undefined;
}

/** The pids whose parent is `parent` (Linux /proc). */
function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent) children.push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}
