/**
 * What an attached session (services/detection/stream/owned-session.ts) adds to the engine per
 * frame, in one process (run on demand, never in `npm test`):
 *
 *   node --import tsx bench/detection/session-intake.bench.ts
 *
 * The squat MoveSpec over UI-PRMD deep squat m01_s01 looped (seq and t rising), frames already
 * parsed (stream-connection.ts's work is frame-decode.bench.ts's), handed to `onFrames` and
 * `onPackedFrames` as the connection hands them over: one frame per message in a live session
 * (the rate limiter counts each), batches of 40 and binary batches of 100 in replays. The
 * session's client discards what it is sent; its stores answer at once, so checkpoints (every
 * 3,000 frames, as by default) are taken, written and acked as in production, minus the network.
 * Baseline: the engine alone on the same input (`push`, `pushMany`, `pushPacked`).
 *
 * BENCH_OTHER_SESSION=<path of a module exporting OwnedSession> runs the session variants
 * through that class too, alternated with the current one (an A/B of a change to the session:
 * copy the file before the change next to the original, so that its imports resolve).
 * Blocks of 20,000 frames, the variants alternated, BENCH_ROUNDS (7) rounds after a warm-up:
 * medians of CPU time per frame (process.cpuUsage).
 */
import path from "node:path";
import { createEngine, type Engine, type PackedFrames } from "@movement-detection/movespec";
import type { Logger } from "@movement-detection/shared/logging";
import { createAdmissionGate } from "@movement-detection/shared/process";
import { Registry } from "prom-client";
import type { DetectionConfig } from "../../services/detection/config.js";
import { readBinaryFrames } from "../../services/detection/stream/binary-frames.js";
import { OwnedSession } from "../../services/detection/stream/owned-session.js";
import { createStreamMetrics } from "../../services/detection/stream/stream-metrics.js";
import type { StreamSink } from "../../services/detection/stream/stream-sink.js";
import { TurnQueue } from "../../services/detection/stream/turn-queue.js";
import {
  FakeRecordStore,
  FakeSessionStore,
  SESSION_ID,
} from "../../test/detection/unit/stream/support/owned-session-harness.js";
import { loadExample, readFrames } from "../../test/movespec/support/recordings.js";
import { median } from "../../test/support/statistics.js";
import { batchMessage, binaryBatchMessage, prepareFrames } from "./load.js";

const BLOCK = 20_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
/** Frames between two turns of the event loop (checkpoint writes and acks run in between). */
const FRAMES_PER_TURN = 200;

const spec = loadExample("squat");
const prepared = prepareFrames(readFrames("m01_s01"), []);
const frames = JSON.parse(batchMessage(prepared, 0, BLOCK)).frames as unknown[];
const singles = frames.map((frame) => [frame]);
const batches: unknown[][] = [];
for (let i = 0; i < BLOCK; i += 40) batches.push(frames.slice(i, i + 40));
const packed: PackedFrames[] = [];
for (let i = 0; i < BLOCK; i += 100) {
  const read = readBinaryFrames(binaryBatchMessage(prepared, i, Math.min(100, BLOCK - i)), 33);
  if ("code" in read) throw new Error(read.message);
  packed.push(read);
}

const config: Pick<DetectionConfig, "limits" | "durability"> = {
  limits: {
    attachTimeoutMs: 600_000,
    idleTimeoutMs: 120_000,
    maxDurationMs: 14_400_000,
    maxFrames: 2_000_000,
    // The limiter's work is measured, never its refusal.
    liveMaxFps: 1e9,
    liveBurstFrames: 1e9,
    maxMessageBytes: 65_536,
    helloTimeoutMs: 5000,
    maxActiveSessionsPerProject: 100,
    summaryMaxBytes: 8 * 1024 * 1024,
  },
  durability: {
    checkpointIntervalMs: 5000,
    checkpointMaxFrames: 3000,
    maxUnackedFrames: 12_000,
    outboundHighWaterBytes: 1024 * 1024,
    replicaTtlMs: 10_000,
    sweepIntervalMs: 5000,
  },
};

const discard: StreamSink = {
  send: () => {},
  close: () => {},
  pauseReading: () => {},
  resumeReading: () => {},
  bufferedAmount: 0,
};
const quiet = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;
const metrics = createStreamMetrics(new Registry(), {
  size: 0,
  pausedCounts: () => ({ unacked: 0, outbound: 0 }),
} as never);
const turns = new TurnQueue();

type SessionClass = typeof OwnedSession;

function attach(Session: SessionClass, engine: Engine, mode: "live" | "replay"): OwnedSession {
  return new Session(
    {
      sessionId: SESSION_ID,
      epoch: 1,
      mode,
      status: "streaming",
      expiresAt: new Date(Date.now() + 3_600_000),
      engine,
      sink: discard,
      lastEventSeq: undefined,
      recentEvents: [],
      recordChunks: 0,
    },
    {
      store: new FakeSessionStore("streaming", 1),
      records: new FakeRecordStore(),
      config,
      logger: quiet,
      metrics,
      onDetached: () => {},
      settleLater: () => {},
      turns,
      ends: createAdmissionGate({ inFlight: 1, queueLimit: Number.POSITIVE_INFINITY }),
    },
  );
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

type Input =
  | "json, 1 frame per message (live)"
  | "json, 40 per message"
  | "binary, 100 per message";
type Variant = { name: string; input: Input; run: (engine: Engine) => Promise<void> };

/** Messages of `input`, each through `take`, a turn of the event loop every FRAMES_PER_TURN. */
async function feed(input: Input, take: (message: never) => void): Promise<void> {
  const messages: readonly unknown[] =
    input === "json, 1 frame per message (live)"
      ? singles
      : input === "json, 40 per message"
        ? batches
        : packed;
  const perMessage = BLOCK / messages.length;
  let sinceTurn = 0;
  for (const message of messages) {
    take(message as never);
    sinceTurn += perMessage;
    if (sinceTurn >= FRAMES_PER_TURN) {
      sinceTurn = 0;
      await nextTurn();
    }
  }
}

const INPUTS: Input[] = [
  "json, 1 frame per message (live)",
  "json, 40 per message",
  "binary, 100 per message",
];

function engineVariant(input: Input): Variant {
  return {
    name: `engine alone, ${input}`,
    input,
    run: (engine) =>
      feed(input, (message: unknown[] | PackedFrames) => {
        if (input === "binary, 100 per message") engine.pushPacked(message as PackedFrames);
        else if (input === "json, 40 per message") engine.pushMany(message as unknown[]);
        else engine.push((message as unknown[])[0]);
      }),
  };
}

function sessionVariant(label: string, Session: SessionClass, input: Input): Variant {
  return {
    name: `${label}, ${input}`,
    input,
    run: async (engine) => {
      const session = attach(Session, engine, input.includes("live") ? "live" : "replay");
      await feed(input, (message: unknown[] | PackedFrames) => {
        if (input === "binary, 100 per message") session.onPackedFrames(message as PackedFrames);
        else session.onFrames(message as unknown[]);
      });
      await session.checkpoint();
      if (!session.isOpen) throw new Error(`${label}: the session stopped`);
      session.abandon("INTERNAL", "bench over", 1011);
    },
  };
}

const other = process.env.BENCH_OTHER_SESSION;
const OtherSession: SessionClass | undefined = other
  ? ((await import(path.resolve(other))) as { OwnedSession: SessionClass }).OwnedSession
  : undefined;

const variants: Variant[] = INPUTS.flatMap((input) => [
  engineVariant(input),
  sessionVariant("session", OwnedSession, input),
  ...(OtherSession
    ? [sessionVariant(`other session (${path.basename(other ?? "")})`, OtherSession, input)]
    : []),
]);

const cpu = new Map<string, number[]>();
async function measure(variant: Variant, record: boolean): Promise<void> {
  const engine = createEngine(spec);
  const before = process.cpuUsage();
  await variant.run(engine);
  const used = process.cpuUsage(before);
  if (engine.acceptedFrames !== BLOCK)
    throw new Error(`${variant.name}: ${engine.acceptedFrames} accepted`);
  if (record)
    cpu.set(variant.name, [
      ...(cpu.get(variant.name) ?? []),
      ((used.user + used.system) * 1000) / BLOCK,
    ]);
}

for (const variant of variants) await measure(variant, false);
for (let round = 0; round < ROUNDS; round += 1) {
  const order = round % 2 === 0 ? variants : [...variants].reverse();
  for (const variant of order) await measure(variant, true);
}

process.stdout.write(
  `an attached session's work per frame, ${BLOCK} frames per block, medians of ${ROUNDS} rounds (CPU ns per frame)\n`,
);
for (const input of INPUTS) {
  const floor = median(cpu.get(engineVariant(input).name) ?? []);
  for (const variant of variants.filter((v) => v.input === input)) {
    const ns = median(cpu.get(variant.name) ?? []);
    const added = variant.name.startsWith("engine") ? "" : `  (+${(ns - floor).toFixed(0)} ns)`;
    process.stdout.write(`  ${variant.name.padEnd(64)} ${ns.toFixed(0).padStart(6)} ns${added}\n`);
  }
}
