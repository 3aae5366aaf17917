/**
 * One OwnedSession on a real engine, with everything around it faked at its edges: the client
 * (a sink recording what it is sent, each message checked against the AsyncAPI document made
 * strict), the session and record stores (in memory, every write under the lease fenced by its
 * epoch as the real stores' filters do), a clock the test moves, and real metrics in a registry of
 * their own. A test arms faults on the stores (the next call fails, or waits for the test) to
 * reach the paths a real store only takes under load or failure: lease lost, failed writes,
 * a release during the end write.
 *
 * The first time-based checkpoint falls at random within the interval (sessions that start
 * together spread their writes): a test that moves the clock before the session's first
 * checkpoint must not depend on whether one is written then.
 */

import {
  createEngine,
  type Engine,
  type PackedFrames,
  type SummaryRecords,
} from "@movement-detection/movespec";
import { encodeBinaryFrames } from "@movement-detection/sdk";
import type { Logger } from "@movement-detection/shared/logging";
import { type AdmissionGate, createAdmissionGate } from "@movement-detection/shared/process";
import { Registry } from "prom-client";
import type {
  DurabilitySettings,
  SessionLimits,
} from "../../../../../services/detection/config.js";
import type {
  SessionDocument,
  SessionMode,
  SessionStatus,
} from "../../../../../services/detection/domain/session-document.js";
import type {
  RecordStore,
  RecordsOf,
} from "../../../../../services/detection/store/record-store.js";
import type {
  ProgressOf,
  ProgressWrite,
  SessionStore,
  TerminalWrite,
} from "../../../../../services/detection/store/session-store.js";
import type { Attachments } from "../../../../../services/detection/stream/attachments.js";
import { OwnedSession } from "../../../../../services/detection/stream/owned-session.js";
import { createProgressBatch } from "../../../../../services/detection/stream/progress-batch.js";
import type { SentEvent } from "../../../../../services/detection/stream/recent-events.js";
import {
  createStreamMetrics,
  type StreamMetrics,
} from "../../../../../services/detection/stream/stream-metrics.js";
import type { StreamSink } from "../../../../../services/detection/stream/stream-sink.js";
import { TurnQueue } from "../../../../../services/detection/stream/turn-queue.js";
import {
  compile,
  ELBOW_SPEC,
  type Frame,
  oneRep,
  sequence,
} from "../../../../movespec/support/frames.js";
import { streamViolation } from "../../../../support/stream-contract.js";

export const SESSION_ID = "0b6f3c52-5d1e-4f0a-9a51-6c1f3d2b7e01";
/** Any instant: the session reads time only through the clock the harness gives it. */
export const T0 = 1_700_000_000_000;

const SPEC = compile(ELBOW_SPEC({ sides: "both" }));

/** Frames of `count` repetitions of both elbows (29 frames each, at 10 fps) from `start`. */
export function repetitions(count: number, start = 0): Frame[] {
  const angles = Array.from({ length: count }, oneRep)
    .flat()
    .map((v) => [v, v] as [number, number]);
  return sequence(angles, 10, start);
}

/** The frames' keypoints as float32 (what a binary message carries). */
export function asFloat32(frames: readonly Frame[]): Frame[] {
  return frames.map((f) => ({ ...f, keypoints: f.keypoints.map((p) => p.map(Math.fround)) }));
}

/** A binary frames message's frames, as stream-connection hands them over (header read). */
export function packed(frames: readonly Frame[]): PackedFrames {
  const bytes = encodeBinaryFrames(frames, 33);
  if (!bytes) throw new Error("frames not encodable");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { view, offset: 8, count: frames.length, valuesPerKeypoint: 4 };
}

export function newEngine(): Engine {
  return createEngine(SPEC);
}

/** What one test arms on a fake store: the next call of a method fails, or waits. */
export interface Gate {
  /** Resolves once the held call has been made (its arguments are recorded). */
  readonly entered: Promise<void>;
  /** Lets the held call go on. */
  open(): void;
}

class Faults {
  private readonly failures = new Map<string, Error>();
  private readonly gates = new Map<string, { enter: () => void; opened: Promise<void> }>();

  fail(method: string, error = new Error(`${method} failed`)): void {
    this.failures.set(method, error);
  }

  hold(method: string): Gate {
    let enter = () => {};
    let open = () => {};
    const entered = new Promise<void>((resolve) => (enter = resolve));
    const opened = new Promise<void>((resolve) => (open = resolve));
    this.gates.set(method, { enter, opened });
    return { entered, open };
  }

  async before(method: string): Promise<void> {
    const gate = this.gates.get(method);
    if (gate) {
      this.gates.delete(method);
      gate.enter();
      await gate.opened;
    }
    const failure = this.failures.get(method);
    if (failure) {
      this.failures.delete(method);
      throw failure;
    }
  }
}

export interface Call {
  readonly method: string;
  readonly args: readonly unknown[];
}

const TERMINAL: readonly SessionStatus[] = ["completed", "failed", "cancelled"];

/**
 * The `sessions` document of one session and the writes OwnedSession makes to it, fenced as
 * store/session-store.ts fences them: a write under a lease matches only its epoch.
 */
export class FakeSessionStore implements SessionStore {
  readonly calls: Call[] = [];
  readonly faults = new Faults();
  status: SessionStatus;
  epoch: number;
  leased = true;
  startedAt: Date | undefined;
  progress: ProgressWrite | undefined;
  terminal: Omit<TerminalWrite, "started_at"> | undefined;

  constructor(status: SessionStatus, epoch: number) {
    this.status = status;
    this.epoch = epoch;
  }

  /** Another attachment took the lease: every write of the current holder is fenced. */
  takeOver(): void {
    this.epoch += 1;
  }

  callsOf(method: string): Call[] {
    return this.calls.filter((call) => call.method === method);
  }

  async saveProgress(
    sessionId: string,
    epoch: number,
    progress: ProgressWrite,
    release: boolean,
  ): Promise<SessionStatus | undefined> {
    this.calls.push({ method: "saveProgress", args: [sessionId, epoch, progress, release] });
    await this.faults.before("saveProgress");
    if (sessionId !== SESSION_ID || epoch !== this.epoch) return undefined;
    this.progress = progress;
    if (release) {
      this.leased = false;
      this.epoch += 1;
    }
    return this.status;
  }

  async saveStreamingProgress(writes: readonly ProgressOf[]): Promise<boolean> {
    this.calls.push({ method: "saveStreamingProgress", args: [writes] });
    await this.faults.before("saveStreamingProgress");
    let matched = 0;
    for (const { sessionId, epoch, progress } of writes) {
      if (sessionId !== SESSION_ID || epoch !== this.epoch || this.status !== "streaming") continue;
      this.progress = progress;
      matched += 1;
    }
    return matched === writes.length;
  }

  async markStreaming(sessionId: string, epoch: number, at: Date): Promise<void> {
    this.calls.push({ method: "markStreaming", args: [sessionId, epoch, at] });
    await this.faults.before("markStreaming");
    if (epoch !== this.epoch || this.status !== "created") return;
    this.status = "streaming";
    this.startedAt = at;
  }

  async requestFinalize(
    sessionId: string,
    from: SessionStatus,
    at: Date,
    epoch?: number,
  ): Promise<SessionDocument | undefined> {
    this.calls.push({ method: "requestFinalize", args: [sessionId, from, at, epoch] });
    await this.faults.before("requestFinalize");
    if (this.status !== from || (epoch !== undefined && epoch !== this.epoch)) return undefined;
    this.status = "finalizing";
    return { _id: sessionId, status: this.status, lease_epoch: this.epoch } as SessionDocument;
  }

  async end(sessionId: string, epoch: number, terminal: TerminalWrite): Promise<boolean> {
    this.calls.push({ method: "end", args: [sessionId, epoch, terminal] });
    await this.faults.before("end");
    if (epoch !== this.epoch || TERMINAL.includes(this.status)) return false;
    const { started_at, ...rest } = terminal;
    this.terminal = rest;
    this.status = terminal.status;
    if (started_at && (!this.startedAt || started_at < this.startedAt)) this.startedAt = started_at;
    this.leased = false;
    this.epoch += 1;
    return true;
  }

  ensureIndexes(): Promise<void> {
    throw new Error("not used by OwnedSession");
  }
  insert(): Promise<void> {
    throw new Error("not used by OwnedSession");
  }
  remove(): Promise<void> {
    throw new Error("not used by OwnedSession");
  }
  find(): Promise<SessionDocument | null> {
    throw new Error("not used by OwnedSession");
  }
  findInProject(): Promise<SessionDocument | null> {
    throw new Error("not used by OwnedSession");
  }
  countActive(): Promise<number> {
    throw new Error("not used by OwnedSession");
  }
  takeLease(): Promise<SessionDocument | undefined> {
    throw new Error("not used by OwnedSession");
  }
  clearLease(): Promise<boolean> {
    throw new Error("not used by OwnedSession");
  }
  sweepCandidates(): Promise<SessionDocument[]> {
    throw new Error("not used by OwnedSession");
  }
}

/** Record chunks by number, each with the epoch it was written under (store/record-store.ts). */
export class FakeRecordStore implements RecordStore {
  readonly calls: Call[] = [];
  readonly faults = new Faults();
  readonly chunks = new Map<number, { epoch: number; records: SummaryRecords }>();

  async save(
    sessionId: string,
    first: number,
    epoch: number,
    chunks: readonly SummaryRecords[],
  ): Promise<boolean> {
    this.calls.push({ method: "save", args: [sessionId, first, epoch, chunks] });
    await this.faults.before("save");
    for (const [offset, records] of chunks.entries()) {
      const existing = this.chunks.get(first + offset);
      if (existing && existing.epoch > epoch) return false;
      this.chunks.set(first + offset, { epoch, records });
    }
    return true;
  }

  async saveMany(writes: readonly RecordsOf[]): Promise<boolean[]> {
    this.calls.push({ method: "saveMany", args: [writes] });
    await this.faults.before("saveMany");
    return writes.map(({ first, epoch, chunks }) => {
      if (chunks.some((_, offset) => (this.chunks.get(first + offset)?.epoch ?? 0) > epoch)) {
        return false;
      }
      for (const [offset, records] of chunks.entries()) {
        this.chunks.set(first + offset, { epoch, records });
      }
      return true;
    });
  }

  async list(
    sessionId: string,
    count: number,
  ): Promise<{ chunks: SummaryRecords[]; missing: number }> {
    this.calls.push({ method: "list", args: [sessionId, count] });
    await this.faults.before("list");
    const chunks: SummaryRecords[] = [];
    for (let i = 0; i < count; i++) {
      const chunk = this.chunks.get(i);
      if (chunk) chunks.push(chunk.records);
    }
    return { chunks, missing: count - chunks.length };
  }

  async removeAll(sessionId: string): Promise<void> {
    this.calls.push({ method: "removeAll", args: [sessionId] });
    await this.faults.before("removeAll");
    this.chunks.clear();
  }

  ensureIndexes(): Promise<void> {
    throw new Error("not used by OwnedSession");
  }
}

/**
 * The client's end: what it was sent (parsed), its closes and the reading switches, in one
 * `trace` that keeps their order. `buffered` is what the socket has not written yet.
 */
export class FakeSink implements StreamSink {
  readonly sent: string[] = [];
  readonly closes: { code: number; reason: string }[] = [];
  readonly trace: string[] = [];
  readonly violations: string[] = [];
  pauses = 0;
  resumes = 0;
  buffered = 0;
  bufferedReads = 0;

  send(message: string): void {
    this.sent.push(message);
    const parsed = JSON.parse(message);
    const what =
      parsed.type === "event"
        ? parsed.event.type
        : parsed.type === "end"
          ? parsed.status
          : (parsed.code ?? "");
    this.trace.push(`${parsed.type} ${what}`.trim());
    const problem = streamViolation(message);
    if (problem) this.violations.push(problem);
  }

  close(code: number, reason: string): void {
    this.closes.push({ code, reason });
    this.trace.push(`close ${code}`);
  }

  pauseReading(): void {
    this.pauses += 1;
    this.trace.push("pause");
  }

  resumeReading(): void {
    this.resumes += 1;
    this.trace.push("resume");
  }

  get bufferedAmount(): number {
    this.bufferedReads += 1;
    return this.buffered;
  }

  // biome-ignore lint/suspicious/noExplicitAny: parsed messages are inspected field by field
  messages(type?: string): any[] {
    return this.sent.map((m) => JSON.parse(m)).filter((m) => type === undefined || m.type === type);
  }

  /** The `event` messages' event types, in order. */
  eventTypes(): string[] {
    return this.messages("event").map((m) => m.event.type);
  }

  get reading(): boolean {
    return this.pauses === this.resumes;
  }
}

export interface LogLine {
  readonly level: string;
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

function recordingLogger(lines: LogLine[]): Logger {
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, message = "") =>
      lines.push({ level, fields, message });
  return {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
  } as unknown as Logger;
}

/** A counter's value (with these labels), or how many observations a histogram made. */
export async function metricValue(
  metric: { get(): Promise<{ values: { value: number; labels: object; metricName?: string }[] }> },
  labels: Record<string, string> = {},
): Promise<number> {
  const { values } = await metric.get();
  const counts = values.filter((v) => v.metricName?.endsWith("_count"));
  return (counts.length > 0 ? counts : values)
    .filter((v) =>
      Object.entries(labels).every(([k, l]) => (v.labels as Record<string, unknown>)[k] === l),
    )
    .reduce((sum, v) => sum + v.value, 0);
}

export interface HarnessOptions {
  readonly mode?: SessionMode;
  readonly status?: SessionStatus;
  readonly epoch?: number;
  readonly engine?: Engine;
  /** From T0. */
  readonly expiresInMs?: number;
  readonly lastEventSeq?: number;
  readonly recentEvents?: readonly SentEvent[];
  readonly recordChunks?: number;
  readonly limits?: Partial<SessionLimits>;
  readonly durability?: Partial<DurabilitySettings>;
  readonly turns?: TurnQueue;
  /** The replica's gate of session ends (default: one at a time, as the replica's default). */
  readonly ends?: AdmissionGate;
  /** Periodic checkpoints through a progress batch that waits this long (none: each alone). */
  readonly batchWaitMs?: number;
}

export interface Harness {
  readonly session: OwnedSession;
  readonly engine: Engine;
  readonly sink: FakeSink;
  readonly store: FakeSessionStore;
  readonly records: FakeRecordStore;
  readonly metrics: StreamMetrics;
  readonly log: LogLine[];
  /** Sessions reported detached (onDetached), in order. */
  readonly detached: OwnedSession[];
  /** Session ids handed to settlement (settleLater). */
  readonly settled: string[];
  readonly clock: { now: number };
}

export const DEFAULT_LIMITS: SessionLimits = {
  attachTimeoutMs: 60_000,
  idleTimeoutMs: 120_000,
  maxDurationMs: 4 * 3_600_000,
  maxFrames: 1_000_000,
  liveMaxFps: 1000,
  liveBurstFrames: 1000,
  maxMessageBytes: 64 * 1024,
  helloTimeoutMs: 5000,
  maxActiveSessionsPerProject: 100,
  summaryMaxBytes: 8 * 1024 * 1024,
};

/** Checkpoints by time only (every 5 s), unless a test sets the frame counts. */
export const DEFAULT_DURABILITY: DurabilitySettings = {
  checkpointIntervalMs: 5000,
  checkpointMaxFrames: 1_000_000,
  maxUnackedFrames: 4_000_000,
  outboundHighWaterBytes: 1024 * 1024,
  replicaTtlMs: 10_000,
  sweepIntervalMs: 5000,
};

export function attachSession(options: HarnessOptions = {}): Harness {
  const epoch = options.epoch ?? 3;
  const engine = options.engine ?? newEngine();
  const sink = new FakeSink();
  const store = new FakeSessionStore(options.status ?? "created", epoch);
  const records = new FakeRecordStore();
  const log: LogLine[] = [];
  const detached: OwnedSession[] = [];
  const settled: string[] = [];
  const clock = { now: T0 };
  const attachments = { size: 0, pausedCounts: () => ({ unacked: 0, outbound: 0 }) };
  const metrics = createStreamMetrics(new Registry(), attachments as unknown as Attachments);
  const session = new OwnedSession(
    {
      sessionId: SESSION_ID,
      epoch,
      mode: options.mode ?? "replay",
      status: options.status ?? "created",
      expiresAt: new Date(T0 + (options.expiresInMs ?? DEFAULT_LIMITS.maxDurationMs)),
      engine,
      sink,
      lastEventSeq: options.lastEventSeq,
      recentEvents: options.recentEvents ?? [],
      recordChunks: options.recordChunks ?? 0,
    },
    {
      store,
      records,
      config: {
        limits: { ...DEFAULT_LIMITS, ...options.limits },
        durability: { ...DEFAULT_DURABILITY, ...options.durability },
      },
      logger: recordingLogger(log),
      metrics,
      onDetached: (session) => detached.push(session),
      settleLater: (sessionId) => settled.push(sessionId),
      turns: options.turns ?? new TurnQueue(),
      ends:
        options.ends ?? createAdmissionGate({ inFlight: 1, queueLimit: Number.POSITIVE_INFINITY }),
      progressBatch:
        options.batchWaitMs === undefined
          ? undefined
          : {
              write: createProgressBatch(store, records, options.batchWaitMs),
              waitMs: options.batchWaitMs,
            },
      now: () => clock.now,
    },
  );
  return { session, engine, sink, store, records, metrics, log, detached, settled, clock };
}

/** Lets pending promise callbacks and immediates run (the session's writes are not awaited). */
export async function flush(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Waits until the session reported itself detached (its last write done), at most `timeoutMs`. */
export async function untilDetached(harness: Harness, timeoutMs = 2000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (harness.detached.length === 0) {
    if (performance.now() > deadline) throw new Error("the session was not reported detached");
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
