/**
 * What a detection checkpoint costs the embedded store (run on demand, never in `npm test`):
 *
 *   node --import tsx bench/embedded-mongo/checkpoint.bench.ts [--sessions 300] [--batch 12] [--writes 600] [--trials 3] [--profile-dir DIR]
 *
 * The store runs as its own process, as `npm start` runs it (services/embedded-mongo/main.ts,
 * data directory on disk, default fsync policy), so /proc gives its CPU apart from the client's.
 * `--sessions` session documents are written the way detection's batched checkpoints write them
 * (through detection's own SessionStore.saveStreamingProgress: one unordered bulkWrite of
 * `--batch` updates under each session's lease): the squat's engine snapshot after 20 s of UI-PRMD
 * frames and the last 16 of its events as detection keeps them with each checkpoint. Baseline in
 * the same run: the same writes with an empty snapshot and no events, so the ratio is what the
 * checkpoint's 19 KB of payload cost the store over a write's fixed cost. Checkpoint and
 * baseline alternate within each trial; the table gives medians over the trials, CPU µs per
 * session written, the store's process and the client's (the driver's share of detection's CPU).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import readline from "node:readline";
import { parseArgs } from "node:util";
import { createEngine } from "@movement-detection/movespec";
import { MongoClient } from "mongodb";
import {
  createSessionStore,
  type ProgressOf,
} from "../../services/detection/store/session-store.js";
import type { SentEvent } from "../../services/detection/stream/recent-events.js";
import { eventMessage } from "../../services/detection/stream/stream-messages.js";
import { authenticatedUri } from "../../services/embedded-mongo/security/client-credentials.js";
import { sessionDocument } from "../../test/detection/support/session-document.js";
import { loadExample, readFrames } from "../../test/movespec/support/recordings.js";
import { median } from "../../test/support/statistics.js";
import { readCommandLine } from "../support/command-line.js";
import { cpuSeconds } from "../support/process-stats.js";

const USAGE = `usage: node --import tsx bench/embedded-mongo/checkpoint.bench.ts [options]

  --sessions N      session documents, written in turn (300)
  --batch N         checkpoints per bulkWrite, as detection batches them (12)
  --writes N        bulkWrites measured per variant and trial (600)
  --trials N        trials; each runs both variants, alternated (3)
  --profile-dir DIR a CPU profile of the store, written when it stops
  --help            this text
`;

const options = readCommandLine("checkpoint.bench", USAGE, (help) => {
  const { values } = parseArgs({
    options: {
      help: { type: "boolean", default: false },
      sessions: { type: "string", default: "300" },
      batch: { type: "string", default: "12" },
      writes: { type: "string", default: "600" },
      trials: { type: "string", default: "3" },
      "profile-dir": { type: "string" },
    },
    strict: true,
  });
  if (values.help) help();
  const count = (name: "sessions" | "batch" | "writes" | "trials", max: number): number => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < 1 || n > max) {
      throw new Error(`--${name} must be a whole number from 1 to ${max}`);
    }
    return n;
  };
  const sessions = count("sessions", 100_000);
  const batch = count("batch", 1000);
  if (batch > sessions) throw new Error("--batch must not exceed --sessions");
  return {
    sessions,
    batch,
    writes: count("writes", 1_000_000),
    trials: count("trials", 100),
    profileDir: values["profile-dir"],
  };
});

/** The squat engine's snapshot and last 16 events after 20 s of a real recording at 30 fps. */
function realCheckpointPayload(): { engine: string; recentEvents: SentEvent[] } {
  const engine = createEngine(loadExample("squat"));
  const frames = readFrames("m01_s01");
  const pushed = Array.from({ length: 600 }, (_, seq) => ({
    ...frames[seq % frames.length],
    seq,
    t: seq / 30,
  }));
  const { events } = engine.pushMany(pushed);
  return {
    engine: JSON.stringify(engine.snapshot()),
    recentEvents: events.slice(-16).map((event) => ({
      event_seq: event.event_seq,
      message: eventMessage(event),
    })),
  };
}

async function startStore(dataDir: string): Promise<{ child: ChildProcess; uri: string }> {
  const profiling = options.profileDir ? ["--cpu-prof", "--cpu-prof-dir", options.profileDir] : [];
  const child = spawn(
    process.execPath,
    [
      ...profiling,
      "--import",
      "tsx",
      "services/embedded-mongo/main.ts",
      "--port",
      "0",
      "--dbpath",
      dataDir,
    ],
    { stdio: ["ignore", "pipe", "inherit"], cwd: join(import.meta.dirname, "..", "..") },
  );
  // The store prints one JSON line with "msg":"ready" once it accepts connections.
  const ready = await new Promise<{ uri: string; credentialsFile: string }>((resolve, reject) => {
    child.once("exit", (code) =>
      reject(new Error(`the store exited (${code}) before it was ready`)),
    );
    const lines = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on("line", (line) => {
      if (!line.includes('"msg":"ready"')) return;
      resolve(JSON.parse(line) as { uri: string; credentialsFile: string });
    });
  });
  return { child, uri: authenticatedUri(ready) };
}

interface Reading {
  storeUs: number;
  clientUs: number;
}

const dataDir = mkdtempSync(join(tmpdir(), "checkpoint-bench-"));
const { child, uri } = await startStore(dataDir);
const client = new MongoClient(uri);
try {
  // detection's own store code: its indexes and the very command its checkpoint batch sends.
  const store = createSessionStore(client.db("bench"));
  await store.ensureIndexes();
  const now = Date.now();
  for (let i = 0; i < options.sessions; i++) {
    await store.insert(
      sessionDocument({ _id: `ses_bench_${i}`, mode: "live", status: "streaming" }, now),
    );
  }
  const payload = realCheckpointPayload();
  let written = 0;
  const batch = (withPayload: boolean): ProgressOf[] =>
    Array.from({ length: options.batch }, () => {
      const n = written++;
      const at = new Date();
      return {
        sessionId: `ses_bench_${n % options.sessions}`,
        epoch: 1,
        progress: {
          checkpoint: {
            engine: withPayload ? payload.engine : "{}",
            accepted_frames_total: n,
            last_seq: n,
            at,
            record_chunks: 0,
            recent_events: withPayload ? payload.recentEvents : [],
          },
          accepted_frames_total: n,
          last_seq: n,
          last_activity_at: at,
        },
      };
    });

  const measure = async (withCheckpoint: boolean, writes: number): Promise<Reading> => {
    const storeBefore = cpuSeconds(child.pid);
    const own = process.cpuUsage();
    for (let i = 0; i < writes; i++) {
      if (!(await store.saveStreamingProgress(batch(withCheckpoint)))) {
        throw new Error("a checkpoint matched no streaming session");
      }
    }
    const clientCpu = process.cpuUsage(own);
    const perSession = 1e6 / (writes * options.batch);
    return {
      storeUs: (cpuSeconds(child.pid) - storeBefore) * perSession,
      clientUs: ((clientCpu.user + clientCpu.system) / 1e6) * perSession,
    };
  };

  // Warm-up: the JIT and every document at its checkpoint's size.
  await measure(true, Math.ceil((2 * options.sessions) / options.batch));
  await measure(false, 50);
  const checkpoints: Reading[] = [];
  const baselines: Reading[] = [];
  for (let trial = 0; trial < options.trials; trial++) {
    const order = trial % 2 === 0 ? [true, false] : [false, true];
    for (const withCheckpoint of order) {
      (withCheckpoint ? checkpoints : baselines).push(
        await measure(withCheckpoint, options.writes),
      );
    }
  }
  const row = (name: string, readings: Reading[]) => {
    const store = median(readings.map((r) => r.storeUs));
    const own = median(readings.map((r) => r.clientUs));
    return { name, store, own };
  };
  const checkpoint = row("checkpoint (snapshot and recent events)", checkpoints);
  const baseline = row("baseline (empty snapshot, no events)", baselines);
  console.log(
    `checkpoint.bench: ${options.sessions} sessions, ${options.batch} per bulkWrite, ` +
      `${options.writes} bulkWrites x ${options.trials} trials; snapshot ${payload.engine.length} B, ` +
      `${payload.recentEvents.length} recent events; Node ${process.version}`,
  );
  console.log("| write | store CPU µs per session | client CPU µs per session |");
  console.log("| --- | ---: | ---: |");
  for (const { name, store, own } of [baseline, checkpoint]) {
    console.log(`| ${name} | ${store.toFixed(1)} | ${own.toFixed(1)} |`);
  }
  console.log(
    `\ncheckpoint / baseline: store ${(checkpoint.store / baseline.store).toFixed(2)}x, ` +
      `client ${(checkpoint.own / baseline.own).toFixed(2)}x`,
  );
} finally {
  await client.close();
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
