import { type ChildProcess, spawn } from "node:child_process";
import { getPriority } from "node:os";
import { createInterface } from "node:readline";
import { lowerPriority, lowerPriorityOfAllThreads } from "./process-priority.js";

/** A JSON log line of one of the system's processes (pino's shape). */
export type LogLine = Record<string, unknown> & { msg?: string; level?: string };

export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Resolves with the first log line whose `msg` is one of `messages`; rejects if it exits. */
  waitFor(messages: readonly string[], timeoutMs: number): Promise<LogLine>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code (or signal). */
  stop(graceMs: number): Promise<number | string>;
  readonly exited: Promise<number | string>;
  /** The last lines it wrote (stdout and stderr), oldest first: what to quote when it dies. */
  recentLines(): readonly string[];
  /** What the child wrote to its private pipe (fd 3), once it closed it; see `privatePipe`. */
  readonly privateOutput: Promise<string> | undefined;
}

export type LineSink = (name: string, line: LogLine | string) => void;

/**
 * Spawns one process of the system (a TypeScript entry point run through tsx, or compiled JS) and
 * reads its stdout as JSON lines.
 */
export function startProcess(options: {
  name: string;
  entry: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  sink: LineSink;
  args?: readonly string[];
  /** Give the child a stdin pipe that closes when this process dies, however it dies. */
  stdinLifeline?: boolean;
  /**
   * Open a private pipe as the child's fd 3, for what must never go through its logs (the
   * development key); its whole content is `privateOutput`.
   */
  privatePipe?: boolean;
  /** Steps of niceness below this process's priority (0-19; 0: the same): process-priority.ts. */
  niceness?: number;
  /** Options for node itself, before the entry point (V8 flags: node-flags.ts). */
  nodeFlags?: readonly string[];
}): ManagedProcess {
  const nodeArgs = [
    ...(options.nodeFlags ?? []),
    ...(options.entry.endsWith(".ts") ? ["--import", "tsx"] : []),
  ];
  const child = spawn(process.execPath, [...nodeArgs, options.entry, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: options.env,
    stdio: [
      options.stdinLifeline ? "pipe" : "ignore",
      "pipe",
      "pipe",
      ...(options.privatePipe ? (["pipe"] as const) : []),
    ],
  });
  const niceness = options.niceness ?? 0;
  const ownNiceness = getPriority();
  lowerPriority(child.pid, niceness, ownNiceness);
  let threadsLowered = niceness === 0;
  const privateOutput = options.privatePipe
    ? new Promise<string>((resolve) => {
        const pipe = child.stdio[3] as NodeJS.ReadableStream;
        let text = "";
        pipe.setEncoding("utf8");
        pipe.on("data", (chunk: string) => (text += chunk));
        pipe.on("end", () => resolve(text));
        pipe.on("error", () => resolve(text));
      })
    : undefined;
  const waiters = new Set<{ messages: readonly string[]; resolve: (line: LogLine) => void }>();
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown"));
  });

  // The last lines, quoted when the process dies unexpectedly: CI logs then say why.
  const recent: string[] = [];
  // Its last error or fatal line: why it exited, when it dies before it is ready.
  let lastFailure: string | undefined;
  const onLine = (text: string) => {
    if (!threadsLowered) {
      // Its first line: the child runs, its worker threads exist.
      threadsLowered = true;
      lowerPriorityOfAllThreads(child.pid, niceness, ownNiceness);
    }
    recent.push(text.length > 500 ? `${text.slice(0, 500)}...` : text);
    if (recent.length > 15) recent.shift();
    let line: LogLine | string = text;
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === "object") line = parsed as LogLine;
    } catch {
      // Not a JSON log line (a stack trace, a warning from node): shown as is.
    }
    options.sink(options.name, line);
    if (typeof line === "object") {
      lastFailure = failureOf(line) ?? lastFailure;
      for (const waiter of waiters) {
        if (waiter.messages.includes(String(line.msg))) waiter.resolve(line);
      }
    }
  };
  if (child.stdout) createInterface({ input: child.stdout }).on("line", onLine);
  if (child.stderr) createInterface({ input: child.stderr }).on("line", onLine);

  return {
    name: options.name,
    child,
    exited,
    recentLines: () => [...recent],
    privateOutput,
    waitFor(messages, timeoutMs) {
      return new Promise((resolve, reject) => {
        const waiter = {
          messages,
          resolve: (line: LogLine) => {
            cleanup();
            resolve(line);
          },
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`${options.name} did not log ${messages.join("/")} within ${timeoutMs} ms`),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(waiter);
        };
        waiters.add(waiter);
        exited.then((code) => {
          if (!waiters.has(waiter)) return;
          cleanup();
          const cause = lastFailure ? `: ${lastFailure}` : "";
          reject(
            new Error(
              `${options.name} exited (${code}) before logging ${messages.join("/")}${cause}`,
            ),
          );
        });
      });
    },
    async stop(graceMs) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** What an error or fatal log line says went wrong (its message, and its error's if another). */
function failureOf(line: LogLine): string | undefined {
  const level = Number(line.level);
  if (!(level >= 50)) return undefined;
  const message = String(line.msg ?? "");
  const err = line.err as { message?: unknown } | undefined;
  const detail = typeof err?.message === "string" ? err.message : "";
  return detail && !message.includes(detail) ? `${message}: ${detail}` : message;
}
