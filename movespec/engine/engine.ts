/**
 * The per-session detection engine: frames in, detection events out. Pure and synchronous; all
 * state is in typed arrays and plain objects, so it snapshots to JSON and restores exactly.
 */
import type { CompiledSpec } from "../compiled-spec.js";
import { TOPOLOGIES, type TopologyName } from "../topology.js";
import { evaluateFrame } from "./evaluate-frame.js";
import type { DetectionEvent, SessionSummary } from "./events.js";
import { type RejectReason, readFrame, readPackedFrame } from "./frame-input.js";
import { type FrameFacts, type Machine, type MachineState, stepMachine } from "./machine/index.js";
import { type PackedFrames, packedFrameBytes } from "./packed-frames.js";
import { ADAPTIVE_HI, ADAPTIVE_LO, type Program } from "./program/index.js";
import type { MemoryUnderConstruction } from "./program/memory.js";
import { SharedProgram } from "./shared-program.js";
import { decodeNumbers, type EncodedNumbers, encodeNumbers } from "./snapshot-codec.js";
import { type SummaryRecords, summarize, takeRecords, withTotals } from "./summary.js";

export type PushResult =
  | { ok: true; events: DetectionEvent[] }
  | { ok: false; reason: RejectReason; message: string };

export interface PushManyResult {
  events: DetectionEvent[];
  rejected: { index: number; seq?: number; reason: RejectReason; message: string }[];
}

export interface EngineOptions {
  topology?: TopologyName;
  /** Width / height of the images the keypoints were normalised to (default: the spec's camera.aspect_ratio). */
  aspectRatio?: number;
  /**
   * Also compute the signals that no phase, rule or metric reads, so that signalValues() has
   * every signal (`movespec run --stats`); events are the same either way.
   */
  everySignal?: boolean;
}

/**
 * Format 2 added the summary totals to the machine state (records may have been taken out);
 * format 1 snapshots still restore (their totals are computed from the records they hold).
 */
const SNAPSHOT_FORMAT = "movespec-engine/2";
const READABLE_FORMATS: readonly string[] = ["movespec-engine/1", SNAPSHOT_FORMAT];

export interface EngineSnapshot {
  format: "movespec-engine/1" | "movespec-engine/2";
  topology: TopologyName;
  aspectRatio: number;
  eventSeq: number;
  lastSeq: number;
  lastT: number | null;
  firstT: number | null;
  acceptedFrames: number;
  finished: boolean;
  values: EncodedNumbers;
  fresh: number[];
  state: EncodedNumbers;
  machines: MachineState[];
  /**
   * The MoveSpec's shape (shapeOf): restore refuses a snapshot of another shape. Absent from
   * snapshots taken before it was added, which restore as before (checked by their sizes only).
   */
  shape?: string;
}

/**
 * What a snapshot's state is laid out by and means: the sides mode, the signals and phases by
 * name, and what is detected. A snapshot restored into a MoveSpec of another shape (a plank's
 * into a lunge's, whose arrays happen to have the same sizes) would run on nonsense; thresholds
 * and other values may differ (a draft edited between two sessions reads the same state).
 */
export function shapeOf(spec: CompiledSpec): string {
  const names = (items: readonly { name: string }[]) => items.map((item) => item.name).join(",");
  return [
    `sides=${JSON.stringify(spec.sides)}`,
    `signals=${names(spec.signals)}`,
    `phases=${names(spec.phases)}`,
    spec.repetition ? `cycle=${spec.repetition.cycle.join(",")}` : "",
    spec.hold ? `hold=${spec.hold.phase}` : "",
    `form=${spec.form.length}`,
  ].join(";");
}

const shapes = new WeakMap<CompiledSpec, string>();

/** shapeOf, once per compiled spec (engines of one spec share it; checkpoints are frequent). */
function cachedShape(spec: CompiledSpec): string {
  let shape = shapes.get(spec);
  if (shape === undefined) {
    shape = shapeOf(spec);
    shapes.set(spec, shape);
  }
  return shape;
}

export interface Engine {
  push(frame: unknown): PushResult;
  pushMany(frames: unknown[]): PushManyResult;
  /**
   * Frames packed in bytes (./packed-frames.ts), checked and evaluated like `pushMany`'s, read
   * straight from the bytes: no object per frame or keypoint.
   */
  pushPacked(frames: PackedFrames): PushManyResult;
  /**
   * The session's summary (its last event is `session.summary`). Its totals cover the whole
   * session; its `reps` and `holds` list only the records not taken (see takeRecords).
   */
  finish(): { events: DetectionEvent[]; summary: SessionSummary };
  snapshot(): EngineSnapshot;
  /**
   * Hands over the repetition and hold records made since the last call and forgets them, so
   * that the state (and snapshots) stay the same size however long the session runs. Whoever
   * takes them keeps them and gives them back to `mergeSummary` with the final summary.
   */
  takeRecords(): SummaryRecords;
  readonly acceptedFrames: number;
  /** seq of the last accepted frame, or -1 when none. */
  readonly lastSeq: number;
  /** The `event_seq` of the last event emitted (0 before any). */
  readonly lastEventSeq: number;
  readonly topology: TopologyName;
  /** Keypoints per frame in this topology. */
  readonly keypointCount: number;
  /** Latest smoothed value of every signal slot (for plots and debugging): `name` or `side.name`. */
  signalValues(): Record<string, number>;
  /** Current phase per machine (for plots): phase name or "" in transition. */
  currentPhases(): string[];
  /**
   * The range each adaptive signal slot (`name` or `side.name`) currently reads its source in:
   * the low and high percentile of the window, in the source's units (NaN before a sample).
   */
  adaptiveRanges(): Record<string, { lo: number; hi: number }>;
  /**
   * Per machine: whether the repetition's start condition has been met (for debugging: it is not
   * an event). False without a repetition; false again after a tracking reset.
   */
  startConditionMet(): boolean[];
}

/** What `push` answers for an accepted frame that made no event (most of them): never mutated. */
const NO_EVENTS: PushResult = Object.freeze({
  ok: true,
  events: Object.freeze([]) as unknown as DetectionEvent[],
}) as PushResult;

/** What `pushPacked` answers for frames that made no event and no rejection: never mutated. */
const NOTHING_PUSHED: PushManyResult = Object.freeze({
  events: Object.freeze([]) as unknown as DetectionEvent[],
  rejected: Object.freeze([]) as unknown as PushManyResult["rejected"],
});

const FINISHED = Object.freeze({
  ok: false,
  reason: "SESSION_FINISHED",
  message: "finish() was called; the session takes no more frames",
} as const);

export function supportsTopology(spec: CompiledSpec, topology: TopologyName): boolean {
  return spec.topologies.includes(topology);
}

class EngineImpl implements Engine {
  private readonly shared: SharedProgram;
  /** This engine's arrays; the program's closures are shared with every engine of the spec. */
  private readonly memory: MemoryUnderConstruction;
  private readonly machines: Machine[];
  private readonly aspect: number;
  private readonly shape: string;
  private eventSeq = 0;
  private _lastSeq = -1;
  private lastT = Number.NEGATIVE_INFINITY;
  private firstT: number | null = null;
  private accepted = 0;
  private finished = false;
  private out: DetectionEvent[] = [];
  private readonly facts: FrameFacts = {
    seq: 0,
    t: 0,
    gate: { none: true, left: true, right: true },
    visibility: { none: 1, left: 1, right: 1 },
  };

  constructor(
    private readonly spec: CompiledSpec,
    readonly topology: TopologyName,
    aspectRatio: number | undefined,
    everySignal = false,
  ) {
    if (!supportsTopology(spec, topology)) {
      throw new Error(
        `this MoveSpec does not run on ${topology} (supported: ${spec.topologies.join(", ") || "none"})`,
      );
    }
    this.aspect = aspectRatio ?? spec.camera.aspectRatio;
    if (!(this.aspect > 0 && this.aspect < 100))
      throw new Error("aspectRatio must be a positive number");
    this.shared = SharedProgram.of(spec, topology, everySignal);
    this.shape = cachedShape(spec);
    this.memory = this.shared.newMemory();
    this.machines = this.shared.newMachines((e) => this.emit(e));
  }

  /** The shared program, bound to this engine's arrays (every use goes through here). */
  private get program(): Program {
    return this.shared.bind(this.memory);
  }

  get acceptedFrames(): number {
    return this.accepted;
  }
  get lastSeq(): number {
    return this._lastSeq;
  }
  /** The `event_seq` of the last event emitted (0 before any). */
  get lastEventSeq(): number {
    return this.eventSeq;
  }
  get keypointCount(): number {
    return this.program.keypointCount;
  }

  private emit(e: Record<string, unknown> & { type: DetectionEvent["type"] }): void {
    // Fixed key order: type, event_seq, then the envelope and payload as built.
    const { type, ...rest } = e;
    const ev = { type, event_seq: ++this.eventSeq, ...rest } as Record<string, unknown>;
    if (type === "rep.completed") ev.total = this.machines.reduce((n, m) => n + m.state.count, 0);
    this.out.push(ev as unknown as DetectionEvent);
  }

  push(frame: unknown): PushResult {
    if (this.finished) return FINISHED;
    const rejection = readFrame(
      frame,
      this.program.keypointCount,
      this.aspect,
      this._lastSeq,
      this.lastT,
      this.program.memory.frame,
    );
    if (rejection) return { ok: false, ...rejection };
    const f = frame as { seq: number; t: number };
    const out = this.out;
    this.accept(f.seq, f.t);
    // Most frames make no event: they share one result, and the buffer is kept for the next.
    if (out.length === 0) return NO_EVENTS;
    this.out = [];
    return { ok: true, events: out };
  }

  pushPacked(frames: PackedFrames): PushManyResult {
    let rejected: PushManyResult["rejected"] | undefined;
    const { view, valuesPerKeypoint } = frames;
    const keypointCount = this.program.keypointCount;
    const frameBytes = packedFrameBytes(keypointCount, valuesPerKeypoint);
    // Events go to the engine's own buffer, as push's do: most messages make none, and then
    // share one result.
    const events = this.out;
    try {
      for (let i = 0, at = frames.offset; i < frames.count; i++, at += frameBytes) {
        const rejection = this.finished
          ? FINISHED
          : readPackedFrame(
              view,
              at,
              valuesPerKeypoint,
              keypointCount,
              this.aspect,
              this._lastSeq,
              this.lastT,
              this.program.memory.frame,
            );
        if (rejection) {
          const entry: PushManyResult["rejected"][number] = {
            index: i,
            reason: rejection.reason,
            message: rejection.message,
          };
          const seq = view.getFloat64(at, true);
          if (Number.isInteger(seq)) entry.seq = seq;
          rejected ??= [];
          rejected.push(entry);
          continue;
        }
        this.accept(view.getFloat64(at, true), view.getFloat64(at + 8, true));
      }
    } finally {
      if (events.length > 0) this.out = [];
    }
    // The (empty) buffer stays the engine's: never handed out.
    if (events.length === 0) return rejected ? { events: [], rejected } : NOTHING_PUSHED;
    return { events, rejected: rejected ?? [] };
  }

  /** A checked frame (its keypoints in memory.frame) is counted and evaluated; events go to `out`. */
  private accept(seq: number, t: number): void {
    this._lastSeq = seq;
    this.lastT = t;
    if (this.firstT === null) this.firstT = t;
    this.accepted++;
    this.evaluate(seq, t);
  }

  pushMany(frames: unknown[]): PushManyResult {
    const events: DetectionEvent[] = [];
    const rejected: PushManyResult["rejected"] = [];
    if (!Array.isArray(frames)) {
      return {
        events,
        rejected: [{ index: 0, reason: "FRAME_MALFORMED", message: "frames must be an array" }],
      };
    }
    for (let i = 0; i < frames.length; i++) {
      const r = this.push(frames[i]);
      if (r.ok) {
        for (const e of r.events) events.push(e);
      } else {
        const seq = (frames[i] as { seq?: unknown } | null)?.seq;
        const entry: PushManyResult["rejected"][number] = {
          index: i,
          reason: r.reason,
          message: r.message,
        };
        if (typeof seq === "number" && Number.isInteger(seq)) entry.seq = seq;
        rejected.push(entry);
      }
    }
    return { events, rejected };
  }

  private evaluate(seq: number, t: number): void {
    evaluateFrame(this.program, this.spec.tracking.minVisibility, seq, t, this.facts);
    for (const m of this.machines) stepMachine(m, this.facts);
  }

  finish(): { events: DetectionEvent[]; summary: SessionSummary } {
    this.out = [];
    const summary = summarize(this.machines, {
      frames: this.accepted,
      firstT: this.firstT,
      lastT: this.lastT,
    });
    if (!this.finished) {
      this.finished = true;
      this.emit({
        type: "session.summary",
        // The last accepted frame's; a session that accepted none (frames: 0) says 0 for both.
        seq: Math.max(this._lastSeq, 0),
        t: this.lastT === Number.NEGATIVE_INFINITY ? 0 : this.lastT,
        ...summary,
      });
    }
    const events = this.out;
    // Between calls the buffer is empty (push and pushPacked hand out what they find there).
    this.out = [];
    return { events, summary };
  }

  snapshot(): EngineSnapshot {
    const mem = this.program.memory;
    const state = mem.state.slice();
    this.program.clearUnusedState(state);
    return {
      format: SNAPSHOT_FORMAT,
      topology: this.topology,
      aspectRatio: this.aspect,
      eventSeq: this.eventSeq,
      lastSeq: this._lastSeq,
      lastT: this.lastT === Number.NEGATIVE_INFINITY ? null : this.lastT,
      firstT: this.firstT,
      acceptedFrames: this.accepted,
      finished: this.finished,
      values: encodeNumbers(mem.values),
      fresh: Array.from(mem.fresh),
      state: encodeNumbers(state),
      machines: this.machines.map((m) => structuredClone(m.state)),
      shape: this.shape,
    };
  }

  restore(snap: EngineSnapshot): void {
    const mem = this.program.memory;
    if (!READABLE_FORMATS.includes(snap?.format)) throw new Error("not a MoveSpec engine snapshot");
    if (
      (snap.shape !== undefined && snap.shape !== this.shape) ||
      snap.machines.length !== this.machines.length ||
      snap.values.length !== mem.values.length ||
      snap.state.length !== mem.state.length
    ) {
      throw new Error("the snapshot was taken with a different MoveSpec");
    }
    this.eventSeq = snap.eventSeq;
    this._lastSeq = snap.lastSeq;
    this.lastT = snap.lastT ?? Number.NEGATIVE_INFINITY;
    this.firstT = snap.firstT;
    this.accepted = snap.acceptedFrames;
    this.finished = snap.finished;
    mem.values.set(decodeNumbers(snap.values));
    mem.fresh.set(snap.fresh);
    mem.state.set(decodeNumbers(snap.state));
    this.machines.forEach((m, i) => {
      m.state = withTotals(structuredClone(snap.machines[i]));
    });
  }

  takeRecords(): SummaryRecords {
    return takeRecords(this.machines);
  }

  signalValues(): Record<string, number> {
    const out: Record<string, number> = {};
    this.program.slots.forEach((s, i) => {
      out[s.side === "none" ? s.name : `${s.side}.${s.name}`] = this.program.memory.values[i];
    });
    return out;
  }

  adaptiveRanges(): Record<string, { lo: number; hi: number }> {
    const out: Record<string, { lo: number; hi: number }> = {};
    const state = this.program.memory.state;
    for (const s of this.program.slots) {
      if (s.adaptiveAt < 0) continue;
      out[s.side === "none" ? s.name : `${s.side}.${s.name}`] = {
        lo: state[s.adaptiveAt + ADAPTIVE_LO],
        hi: state[s.adaptiveAt + ADAPTIVE_HI],
      };
    }
    return out;
  }

  startConditionMet(): boolean[] {
    return this.machines.map((m) => this.spec.repetition !== undefined && m.state.armed);
  }

  currentPhases(): string[] {
    return this.machines.map((m) =>
      m.state.phase >= 0 ? this.spec.phases[m.state.phase].name : "",
    );
  }
}

export function createEngine(spec: CompiledSpec, options: EngineOptions = {}): Engine {
  const topology =
    options.topology ??
    (spec.topologies.includes("blazepose-33") ? "blazepose-33" : spec.topologies[0]);
  if (!topology || !TOPOLOGIES[topology]) throw new Error(`unknown topology ${String(topology)}`);
  return new EngineImpl(spec, topology, options.aspectRatio, options.everySignal);
}

export function restoreEngine(spec: CompiledSpec, snapshot: EngineSnapshot): Engine {
  const engine = new EngineImpl(spec, snapshot.topology, snapshot.aspectRatio);
  engine.restore(snapshot);
  return engine;
}
