/**
 * Compaction benchmark of the embedded MongoDB-compatible server: a server process is loaded
 * with BENCH_MIB MiB of documents, a snapshot is triggered by the write that passes the
 * threshold, then the server is restarted from the snapshot. Run:
 *
 *   node --import tsx bench/embedded-mongo/compaction.bench.ts
 *
 * BENCH_MIB (default 200) and BENCH_DOC_BYTES (default 2000) size the data; BENCH_ROUNDS
 * (default 1) repeats the whole run. BENCH_COMPARE_MAIN=<path to another revision's
 * services/embedded-mongo/main.ts> runs that server too, alternately, as the baseline of
 * the ratios (e.g. `git worktree add /tmp/before main`, with node_modules linked there).
 *
 * Figures per server (median over rounds):
 * - snapshot ms: the server's own "snapshot written" duration;
 * - peak RSS over the loaded RSS during the snapshot (VmHWM, reset before it, minus VmRSS);
 * - longest ping round trip while the snapshot ran (how long the server stopped answering;
 *   it includes the insertMany of 1 MiB that triggers it);
 * - restart: time from spawn to "ready" on the data directory, and its peak RSS.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MongoClient } from "mongodb";
import { authenticatedUri } from "../../services/embedded-mongo/security/client-credentials.js";

const MiB = 1024 * 1024;
const TARGET = Number(process.env.BENCH_MIB ?? 200) * MiB;
const DOC_BYTES = Number(process.env.BENCH_DOC_BYTES ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const servers: Array<{ name: string; main: string }> = [
  { name: "this revision", main: path.join(repoRoot, "services/embedded-mongo/main.ts") },
];
if (process.env.BENCH_COMPARE_MAIN) {
  servers.unshift({ name: "baseline", main: path.resolve(process.env.BENCH_COMPARE_MAIN) });
}

interface Figures {
  loadSeconds: number;
  loadedRssMiB: number;
  snapshotMs: number;
  snapshotPeakOverLoadedMiB: number;
  longestPingMs: number;
  restartMs: number;
  restartPeakRssMiB: number;
  dataDirMiB: number;
}

interface ServerProcess {
  pid: number;
  uri: string;
  /** Resolves with the next log line whose msg matches; rejects if the server fails first. */
  nextLog(msg: RegExp): Promise<Record<string, unknown>>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

interface Waiter {
  msg: RegExp;
  resolve: (line: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

function procStatus(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]);
  return kib / 1024;
}

/** Resets the process's peak RSS (VmHWM) to its current RSS. */
function resetPeak(pid: number): void {
  fs.writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

async function startServer(main: string, dataDir: string): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", main, "--port", "0", "--dbpath", dataDir],
    {
      cwd: path.dirname(main),
      // Our end of its stdin stays open while we live: the server stops if we die.
      stdio: ["pipe", "pipe", "inherit"],
      env: {
        ...process.env,
        EMBEDDED_MONGO_COMPACT_BYTES: String(TARGET),
        EMBEDDED_MONGO_LOG_LEVEL: "info",
        EMBEDDED_MONGO_STOP_ON_STDIN_CLOSE: "1",
      },
    },
  );
  const waiters: Waiter[] = [];
  const failAll = (error: Error): void => {
    for (const waiter of waiters.splice(0)) waiter.reject(error);
  };
  let pending = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const text of lines) {
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text);
      } catch {
        continue;
      }
      if (Number(line.level) >= 50) {
        process.stderr.write(`server: ${text.slice(0, 400)}\n`);
        failAll(new Error(`server: ${line.msg}`));
      }
      const i = waiters.findIndex((w) => w.msg.test(String(line.msg)));
      if (i >= 0) waiters.splice(i, 1)[0].resolve(line);
    }
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  void exited.then(() => failAll(new Error("server exited")));
  const nextLog = (msg: RegExp) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      waiters.push({ msg, resolve, reject });
    });
  const ready = await nextLog(/^ready$/);
  return {
    pid: child.pid!,
    // A revision with authentication names its credentials file; an older baseline has none.
    uri: ready.credentialsFile
      ? authenticatedUri({ uri: String(ready.uri), credentialsFile: String(ready.credentialsFile) })
      : String(ready.uri),
    nextLog,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

function docs(from: number, count: number): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, j) => {
    const i = from + j;
    return {
      _id: i,
      session: `s-${i % 300}`,
      at: new Date(1_700_000_000_000 + i * 1000),
      metrics: { reps: i % 50, score: (i % 1000) / 10 },
      pad: "p".repeat(Math.max(0, DOC_BYTES - 120)),
    };
  });
}

/** Runs `fn` against a server on `dataDir`; the server is killed whatever happens. */
async function withServer<T>(
  main: string,
  dataDir: string,
  fn: (server: ServerProcess, client: MongoClient) => Promise<T>,
): Promise<T> {
  const server = await startServer(main, dataDir);
  const client = new MongoClient(server.uri);
  try {
    return await fn(server, client);
  } finally {
    await client.close();
    await server.stop("SIGKILL");
  }
}

async function run(main: string): Promise<Figures> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "embedded-mongo-compaction-bench-"));
  try {
    let n = 0;
    const first = await withServer(main, dataDir, async (server, client) => {
      const c = client.db("bench").collection("docs");
      const batch = Math.max(1, Math.floor(MiB / DOC_BYTES));
      // Load to just under the threshold: no snapshot yet.
      const loadStart = performance.now();
      while ((n + batch) * DOC_BYTES < TARGET * 0.97) {
        await c.insertMany(docs(n, batch));
        n += batch;
      }
      const loadSeconds = (performance.now() - loadStart) / 1000;
      const loadedRssMiB = procStatus(server.pid, "VmRSS");
      resetPeak(server.pid);
      // Writes pass the threshold; a ping every 5 ms measures how long the server stops
      // answering while the snapshot is written.
      const written = server.nextLog(/snapshot written/);
      written.catch(() => {}); // awaited below; may fail before that
      let done = false;
      let longestPingMs = 0;
      const pinger = (async () => {
        const admin = client.db("admin");
        while (!done) {
          const t = performance.now();
          await admin.command({ ping: 1 });
          longestPingMs = Math.max(longestPingMs, performance.now() - t);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      try {
        // Until the write that passes the threshold has started a snapshot (a file appears).
        const started = () => fs.readdirSync(dataDir).some((f) => f.startsWith("snapshot-"));
        while (!started()) {
          await c.insertMany(docs(n, batch));
          n += batch;
        }
        const line = await written;
        return {
          loadSeconds,
          loadedRssMiB,
          snapshotMs: Number(line.ms),
          snapshotPeakOverLoadedMiB: procStatus(server.pid, "VmHWM") - loadedRssMiB,
          longestPingMs,
        };
      } finally {
        done = true;
        await pinger.catch(() => {});
        // A clean stop: the restart below starts from the snapshot.
        await client.close();
        await server.stop("SIGTERM");
      }
    });
    const restartStart = performance.now();
    return await withServer(main, dataDir, async (server, client) => {
      const restartMs = performance.now() - restartStart;
      const restartPeakRssMiB = procStatus(server.pid, "VmHWM");
      const count = await client.db("bench").collection("docs").estimatedDocumentCount();
      if (count !== n) throw new Error(`restart found ${count} documents, expected ${n}`);
      const dataDirMiB =
        fs
          .readdirSync(dataDir)
          .reduce((sum, f) => sum + fs.statSync(path.join(dataDir, f)).size, 0) / MiB;
      return { ...first, restartMs, restartPeakRssMiB, dataDirMiB };
    });
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const results = new Map<string, Figures[]>(servers.map((s) => [s.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const server of servers) {
      const figures = await run(server.main).catch((error: Error) => {
        console.log(`${server.name} failed: ${error.message}`);
        return undefined;
      });
      if (!figures) process.exit(1);
      results.get(server.name)?.push(figures);
      process.stderr.write(`${server.name}, round ${round + 1}: ${JSON.stringify(figures)}\n`);
    }
  }
  const keys = Object.keys(results.get(servers[0].name)![0]) as Array<keyof Figures>;
  const compare = servers.length === 2;
  console.log(
    `${Math.round(TARGET / MiB)} MiB of ${DOC_BYTES}-byte documents, median of ${ROUNDS} round(s)\n`,
  );
  console.log(`| figure | ${servers.map((s) => s.name).join(" | ")}${compare ? " | ratio" : ""} |`);
  console.log(`| --- | ${servers.map(() => "---:").join(" | ")}${compare ? " | ---:" : ""} |`);
  for (const key of keys) {
    const cells = servers.map((s) => median(results.get(s.name)!.map((f) => f[key])));
    const ratio = compare ? ` | x${(cells[1] / cells[0]).toFixed(2)}` : "";
    const digits = key === "loadSeconds" ? 1 : 0;
    console.log(`| ${key} | ${cells.map((v) => v.toFixed(digits)).join(" | ")}${ratio} |`);
  }
}

await main();
