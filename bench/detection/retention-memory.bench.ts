/**
 * Memory of the embedded store under a steady churn of detection sessions, with and without a
 * retention (run on demand, never in `npm test`):
 *
 *   node --import tsx bench/detection/retention-memory.bench.ts
 *   node --import tsx bench/detection/retention-memory.bench.ts --concurrent 10 --session-minutes 10 \
 *     --retention-days 1 --window-seconds 120 --minutes 8 --variants retention,forever --json > out.json
 *
 * The load is days of a deployment in minutes: `--concurrent` users each run sessions of
 * `--session-minutes`, around the clock, so `concurrent × 1440 / session-minutes` sessions end per
 * day, and `--retention-days` of them are kept. Each session is written as the detection service
 * writes one, through its own stores (services/detection/store): created with an idempotency key,
 * its record chunks, two checkpoints, the end with the summary (`terminal_outcome`) and the final
 * checkpoint, the chunks removed. Its documents are real: a squat recording looped through the
 * engine for the session's length, checkpointed every 5 s as a live session is (a pool of 8
 * sessions from different starting points, reused with fresh ids).
 *
 * Days pass in `--window-seconds`: the service's clock (injected into the stores, as in the
 * tests) runs `retention - window` behind the store's, so an ended session reaches its retention
 * (the store's TTL index, in days) `window` seconds after it ended, and the sessions are written
 * at the rate that makes `retention` days of them in that window. The store's TTL monitor runs
 * every `--ttl-seconds` (5 s: an hour of a simulated day when a day passes in 120 s; in a
 * deployment it runs every 60 s).
 *
 * Every `--sample` seconds: the store's resident memory (/proc), its V8 heap after a full garbage
 * collection (bench/support/memory-probe.ts), the sessions in it, the data directory. Variants:
 * `retention` (the index, the clock behind) and `forever` (DETECTION_SESSION_RETENTION_DAYS=0),
 * each against a fresh store. The verdict (exit code 1 if not): with the retention, from a
 * window and a quarter on (sessions expire from one window on), the mean heap of the second half
 * of the samples is less than 10% above the first half's (the monitor's passes make a sawtooth).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createEngine, type SummaryRecords } from "@movement-detection/movespec";
import { createIdempotencyStore } from "@movement-detection/shared/idempotency";
import { type Db, MongoClient } from "mongodb";
import type {
  SessionCheckpoint,
  SessionDocument,
} from "../../services/detection/domain/session-document.js";
import {
  recordChunkTtlMs,
  retentionMs,
} from "../../services/detection/domain/session-retention.js";
import { finalSummary, summaryEventOf } from "../../services/detection/domain/session-summary.js";
import { chunkRecords, createRecordStore } from "../../services/detection/store/record-store.js";
import { createSessionStore } from "../../services/detection/store/session-store.js";
import { loadExample, readFrames } from "../../test/movespec/support/recordings.js";
import { type EmbeddedMongoHandle, startEmbeddedMongo } from "../../test/support/embedded-mongo.js";
import { readCommandLine } from "../support/command-line.js";
import { directoryBytes, residentBytes } from "../support/process-stats.js";

const USAGE = `usage: node --import tsx bench/detection/retention-memory.bench.ts [options]

  --concurrent N       users streaming around the clock (10)
  --session-minutes N  length of each session (10)
  --retention-days N   DETECTION_SESSION_RETENTION_DAYS of the retention variant (1)
  --window-seconds N   real seconds in which the retention's days pass (120)
  --minutes N          length of each variant's run (8)
  --ttl-seconds N      the store's TTL monitor period, EMBEDDED_MONGO_TTL_INTERVAL_MS / 1000 (5)
  --sample N           seconds between samples (15)
  --variants LIST      retention,forever (both, in that order)
  --json               the result as JSON on stdout (the table goes to stderr)
  --help               this text
`;

const DAY_MS = 86_400_000;
const FPS = 30;
const CHECKPOINT_MS = 5000;
const POOL = 8;
const MAX_IN_FLIGHT = 32;
const SUMMARY_MAX_BYTES = 8 * 1024 * 1024;

const options = readCommandLine("retention-memory.bench", USAGE, (help) => {
  const { values } = parseArgs({
    options: {
      help: { type: "boolean", default: false },
      concurrent: { type: "string", default: "10" },
      "session-minutes": { type: "string", default: "10" },
      "retention-days": { type: "string", default: "1" },
      "window-seconds": { type: "string", default: "120" },
      minutes: { type: "string", default: "8" },
      "ttl-seconds": { type: "string", default: "5" },
      sample: { type: "string", default: "15" },
      variants: { type: "string", default: "retention,forever" },
      json: { type: "boolean", default: false },
    },
  });
  if (values.help) help();
  const positive = (name: keyof typeof values) => {
    const value = Number(values[name]);
    if (!(Number.isFinite(value) && value > 0))
      throw new Error(`--${name} must be a positive number`);
    return value;
  };
  const variants = String(values.variants).split(",");
  for (const variant of variants) {
    if (variant !== "retention" && variant !== "forever")
      throw new Error(`--variants: unknown variant "${variant}" (retention, forever)`);
  }
  const retentionDays = positive("retention-days");
  if (!Number.isInteger(retentionDays)) throw new Error("--retention-days must be whole days");
  return {
    concurrent: positive("concurrent"),
    sessionMinutes: positive("session-minutes"),
    retentionDays,
    windowMs: positive("window-seconds") * 1000,
    runMs: positive("minutes") * 60_000,
    ttlMs: positive("ttl-seconds") * 1000,
    sampleMs: positive("sample") * 1000,
    variants: variants as ("retention" | "forever")[],
    json: Boolean(values.json),
  };
});

const out = options.json ? process.stderr : process.stdout;
const say = (line: string) => out.write(`${line}\n`);
const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One session's documents as the service writes them, from the engine. */
interface SessionTemplate {
  readonly summary: string;
  readonly checkpoint: Omit<SessionCheckpoint, "at">;
  readonly chunks: SummaryRecords[];
  readonly frames: number;
}

function sessionTemplates(): SessionTemplate[] {
  const spec = loadExample("squat");
  const recording = readFrames("m01_s01");
  const frames = Math.round(options.sessionMinutes * 60 * FPS);
  const perCheckpoint = (CHECKPOINT_MS / 1000) * FPS;
  return Array.from({ length: POOL }, (_, loop) => {
    const offset = Math.floor((loop * recording.length) / POOL);
    const engine = createEngine(spec);
    const taken: SummaryRecords[] = [];
    let lastEvent = "";
    for (let k = 0; k < frames; k += 1) {
      const frame = recording[(offset + k) % recording.length];
      const result = engine.push({ seq: k, t: k / FPS, keypoints: frame.keypoints });
      if (result.ok && result.events.length > 0) lastEvent = JSON.stringify(result.events.at(-1));
      if ((k + 1) % perCheckpoint === 0) taken.push(engine.takeRecords());
    }
    const chunks = chunkRecords(taken);
    const engineState = JSON.stringify(engine.snapshot());
    // The last events sent, kept with each checkpoint (at most 16 or 8 KiB: recent-events.ts).
    const recent = Array.from({ length: 16 }, (_, i) => ({
      event_seq: 1000 + i,
      message: `{"type":"event","event":${lastEvent}}`,
    })).filter(
      (_, i, all) => all.slice(0, i + 1).reduce((n, e) => n + e.message.length, 0) <= 8192,
    );
    const summary = finalSummary(
      summaryEventOf(engine.finish().events),
      chunks,
      SUMMARY_MAX_BYTES,
    ).text;
    return {
      summary,
      checkpoint: {
        engine: engineState,
        accepted_frames_total: frames,
        last_seq: frames - 1,
        record_chunks: chunks.length,
        recent_events: recent,
      },
      chunks,
      frames,
    };
  });
}

interface Sample {
  t_s: number;
  simulated_days: number;
  ended: number;
  sessions_stored: number;
  rss_mb: number;
  heap_used_mb: number;
  data_mb: number;
  sessions_per_s: number;
}

async function storeMemory(pid: number, dir: string): Promise<{ rss: number; heapUsed: number }> {
  const file = join(dir, `${pid}.json`);
  await rm(file, { force: true });
  process.kill(pid, "SIGUSR2");
  for (let waited = 0; waited < 60_000; waited += 50) {
    const text = await readFile(file, "utf8").catch(() => undefined);
    if (text) {
      const usage = JSON.parse(text) as { rss: number; heapUsed: number };
      return { rss: residentBytes(pid), heapUsed: usage.heapUsed };
    }
    await sleep(50);
  }
  throw new Error("the store did not report its memory within 60 s");
}

function pidOf(mongo: EmbeddedMongoHandle): number {
  for (const line of mongo.output().split("\n")) {
    if (!line.includes('"ready"')) continue;
    const pid = (JSON.parse(line) as { pid?: number }).pid;
    if (pid) return pid;
  }
  throw new Error("no pid in the store's ready line");
}

async function runVariant(
  variant: "retention" | "forever",
  templates: readonly SessionTemplate[],
): Promise<{ samples: Sample[]; verdict?: string; flat?: boolean }> {
  const probeDir = await mkdtemp(join(tmpdir(), "mds-retention-probe-"));
  const mongo = await startEmbeddedMongo({
    env: {
      NODE_OPTIONS: `--import tsx --import ${fileURLToPath(new URL("../support/memory-probe.ts", import.meta.url))}`,
      MEMORY_PROBE_DIR: probeDir,
      EMBEDDED_MONGO_TTL_INTERVAL_MS: String(options.ttlMs),
    },
  });
  const pid = pidOf(mongo);
  const client = new MongoClient(mongo.uri, { maxPoolSize: MAX_IN_FLIGHT + 4 });
  try {
    const db: Db = client.db("mds_detection");
    const retentionDaysMs = options.retentionDays * DAY_MS;
    // The service's clock: retention - window behind the store's (see the header).
    const offset = -(retentionDaysMs - options.windowMs);
    const clock = () => Date.now() + offset;
    const retention = variant === "retention" ? retentionMs(options.retentionDays) : undefined;
    const sessions = createSessionStore(db, { retentionMs: retention });
    const records = createRecordStore(db, {
      ttlMs: recordChunkTtlMs(240 * 60_000, retention),
      now: clock,
    });
    // Idempotency keys live the contract's 24 h of simulated time: written on the clock behind
    // the store's, they need that lag added to reach the store's clock.
    const idempotency = createIdempotencyStore(db, {
      now: clock,
      retentionMs: -offset + (DAY_MS * options.windowMs) / retentionDaysMs,
    });
    await Promise.all([
      sessions.ensureIndexes(),
      records.ensureIndexes(),
      idempotency.ensureIndexes(),
    ]);

    const sessionsPerDay = (options.concurrent * 1440) / options.sessionMinutes;
    const speed = retentionDaysMs / options.windowMs; // simulated ms per real ms
    const perSecond = (sessionsPerDay * speed) / 86_400;
    say(
      `\n${variant}: ${Math.round(sessionsPerDay)} sessions a day, ${options.retentionDays} day(s) = ${options.windowMs / 1000} s, so ${perSecond.toFixed(1)} sessions/s; ${variant === "retention" ? `kept ${options.retentionDays} day(s)` : "kept for ever"}`,
    );

    let ended = 0;
    const lifecycle = async (index: number) => {
      const template = templates[index % templates.length];
      const at = clock();
      const sessionMs = options.sessionMinutes * 60_000;
      const projectId = `project-${index % 10}`;
      const key = `key-${index}`;
      const outcome = await idempotency.run(
        { scope: `${projectId}:CreateSession`, key, fingerprint: "f" },
        async (attempt) => {
          const doc: SessionDocument = {
            _id: attempt.reservedId,
            organization_id: "organization",
            project_id: projectId,
            movespec_id: "movespec",
            movespec_version_id: "version",
            mode: "live",
            status: "created",
            contract_major: 1,
            created_at: new Date(at - sessionMs),
            attach_deadline: new Date(at - sessionMs + 600_000),
            expires_at: new Date(at - sessionMs + 240 * 60_000),
            last_activity_at: new Date(at - sessionMs),
            accepted_frames_total: 0,
            lease: { owner: "bench", purpose: "attach", acquired_at: new Date(at - sessionMs) },
            lease_epoch: 1,
          };
          await sessions.insert(doc);
          return { session_id: doc._id };
        },
      );
      const id = (outcome.value as { session_id: string }).session_id;
      const checkpoint = (share: number): SessionCheckpoint => ({
        ...template.checkpoint,
        accepted_frames_total: Math.round(template.frames * share),
        at: new Date(at),
      });
      const half = Math.ceil(template.chunks.length / 2);
      await records.save(id, 0, 1, template.chunks.slice(0, half));
      await sessions.saveProgress(id, 1, progress(checkpoint(0.5), at), false);
      await records.save(id, half, 1, template.chunks.slice(half));
      await sessions.saveProgress(id, 1, progress(checkpoint(1), at), false);
      await sessions.requestFinalize(id, "created", new Date(at));
      await sessions.end(id, 1, {
        status: "completed",
        ended_at: new Date(clock()),
        started_at: new Date(at - sessionMs),
        accepted_frames_total: template.frames,
        last_seq: template.frames - 1,
        terminal_outcome: template.summary,
        checkpoint: checkpoint(1),
      });
      await records.removeAll(id);
      ended += 1;
    };

    const samples: Sample[] = [];
    const started = performance.now();
    let next = 0;
    let lastSample = started;
    let lastEnded = 0;
    const inFlight = new Set<Promise<void>>();
    let failure: unknown;
    const sample = async () => {
      const memory = await storeMemory(pid, probeDir);
      const now = performance.now();
      const row: Sample = {
        t_s: Math.round((now - started) / 1000),
        simulated_days: Math.round((((now - started) * speed) / DAY_MS) * 100) / 100,
        ended,
        sessions_stored: await db.collection("sessions").estimatedDocumentCount(),
        rss_mb: mb(memory.rss),
        heap_used_mb: mb(memory.heapUsed),
        data_mb: mb(directoryBytes(mongo.dataDir)),
        sessions_per_s: Math.round(((ended - lastEnded) / ((now - lastSample) / 1000)) * 10) / 10,
      };
      lastSample = now;
      lastEnded = ended;
      samples.push(row);
      say(
        `  ${String(row.t_s).padStart(5)} s  day ${row.simulated_days.toFixed(2).padStart(6)}  ended ${String(row.ended).padStart(7)}  stored ${String(row.sessions_stored).padStart(7)}  RSS ${String(row.rss_mb).padStart(7)} MB  heap ${String(row.heap_used_mb).padStart(7)} MB  data ${String(row.data_mb).padStart(7)} MB  ${row.sessions_per_s}/s`,
      );
    };
    await sample();
    let nextSampleAt = started + options.sampleMs;
    while (performance.now() - started < options.runMs && failure === undefined) {
      const now = performance.now();
      const due = Math.floor(((now - started) / 1000) * perSecond);
      while (next < due && inFlight.size < MAX_IN_FLIGHT) {
        const running: Promise<void> = lifecycle(next)
          .catch((error) => {
            failure = error;
          })
          .finally(() => inFlight.delete(running));
        inFlight.add(running);
        next += 1;
      }
      if (now >= nextSampleAt) {
        await sample();
        nextSampleAt += options.sampleMs;
      }
      await sleep(inFlight.size >= MAX_IN_FLIGHT ? 5 : 20);
    }
    await Promise.all(inFlight);
    if (failure) throw failure;
    await sample();
    if (next > ended + MAX_IN_FLIGHT) say(`  (the store fell behind: ${next} sessions due)`);

    if (variant !== "retention") return { samples };
    // Flat once the retention applies: sessions expire from a window in. The TTL monitor's passes
    // make a sawtooth, so halves of the samples after that are compared by their means.
    const settled = samples.filter((row) => row.t_s * 1000 >= options.windowMs * 1.25);
    if (settled.length < 4) return { samples, verdict: "too short to judge: run longer" };
    const mean = (rows: Sample[], pick: (row: Sample) => number) =>
      rows.reduce((sum, row) => sum + pick(row), 0) / rows.length;
    const halves = [
      settled.slice(0, Math.floor(settled.length / 2)),
      settled.slice(Math.floor(settled.length / 2)),
    ];
    const change = (pick: (row: Sample) => number) =>
      (100 * (mean(halves[1], pick) - mean(halves[0], pick))) / mean(halves[0], pick);
    const heap = change((row) => row.heap_used_mb);
    const rss = change((row) => row.rss_mb);
    return {
      samples,
      flat: heap < 10,
      verdict: `from ${settled[0].t_s} s on, mean of the second half against the first: heap after GC ${heap.toFixed(1)}%, RSS ${rss.toFixed(1)}% (stored sessions ${Math.round(mean(halves[0], (row) => row.sessions_stored))} -> ${Math.round(mean(halves[1], (row) => row.sessions_stored))})`,
    };
  } finally {
    await client.close();
    await mongo.stop();
    await rm(probeDir, { recursive: true, force: true });
  }
}

/** The fields a checkpoint writes (store/session-store.ts ProgressWrite). */
function progress(checkpoint: SessionCheckpoint, at: number) {
  return {
    checkpoint,
    accepted_frames_total: checkpoint.accepted_frames_total,
    last_seq: checkpoint.last_seq,
    last_activity_at: new Date(at),
  };
}

async function main(): Promise<number> {
  say(`preparing ${POOL} sessions of ${options.sessionMinutes} min through the engine...`);
  const templates = sessionTemplates();
  const sizes = templates[0];
  const checkpointBytes = JSON.stringify(sizes.checkpoint).length;
  say(
    `an ended session: summary ${sizes.summary.length} B, final checkpoint ${checkpointBytes} B (engine ${sizes.checkpoint.engine.length} B), ${sizes.chunks.length} record chunk(s) while active`,
  );
  const results: Record<string, Awaited<ReturnType<typeof runVariant>>> = {};
  for (const variant of options.variants) results[variant] = await runVariant(variant, templates);

  say("");
  for (const [variant, result] of Object.entries(results)) {
    const last = result.samples.at(-1) as Sample;
    say(
      `${variant}: ${last.ended} sessions ended, ${last.sessions_stored} stored; RSS ${last.rss_mb} MB, heap ${last.heap_used_mb} MB at the end`,
    );
    if (result.verdict) say(`  ${result.verdict}`);
  }
  const retention = results.retention;
  if (retention?.flat !== undefined)
    say(
      `${retention.flat ? "PASS" : "FAIL"}  memory flat once the retention applies (heap growth under 10%)`,
    );
  if (options.json)
    process.stdout.write(
      `${JSON.stringify({ options, document_bytes: { summary: sizes.summary.length, checkpoint: checkpointBytes }, results }, null, 1)}\n`,
    );
  return retention?.flat === false ? 1 : 0;
}

process.exitCode = await main();
