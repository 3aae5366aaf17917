/**
 * The per-session detection engine: frames in, detection events out. Pure and synchronous; all
 * state is in typed arrays and plain objects, so it snapshots to JSON and restores exactly.
 */
import type { CompiledSpec } from "../compiled-spec.js";
import { type SideKey, sidesPlan } from "../sides.js";
import { TOPOLOGIES, type TopologyName } from "../topology.js";
import { evaluateFrame } from "./evaluate-frame.js";
import { type DetectionEvent, r3, type SessionSummary } from "./events.js";
import { type RejectReason, readFrame } from "./frame-input.js";
import {
  createMachine,
  type FrameFacts,
  type Machine,
  type MachineState,
  openHold,
  stepMachine,
} from "./machine/index.js";
import { buildProgram, type Program } from "./program/index.js";
import { decodeNumbers, type EncodedNumbers, encodeNumbers } from "./snapshot-codec.js";

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
}

export interface EngineSnapshot {
  format: "movespec-engine/1";
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
}

export interface Engine {
  push(frame: unknown): PushResult;
  pushMany(frames: unknown[]): PushManyResult;
  finish(): { events: DetectionEvent[]; summary: SessionSummary };
  snapshot(): EngineSnapshot;
  readonly acceptedFrames: number;
  /** seq of the last accepted frame, or -1 when none. */
  readonly lastSeq: number;
  readonly topology: TopologyName;
  /** Latest smoothed value of every signal slot (for plots and debugging): `name` or `side.name`. */
  signalValues(): Record<string, number>;
  /** Current phase per machine (for plots): phase name or "" in transition. */
  currentPhases(): string[];
  /**
   * Per machine: whether the repetition's start condition has been met (for debugging: it is not
   * an event). False without a repetition; false again after a tracking reset.
   */
  startConditionMet(): boolean[];
}

export function supportsTopology(spec: CompiledSpec, topology: TopologyName): boolean {
  return spec.topologies.includes(topology);
}

class EngineImpl implements Engine {
  private readonly program: Program;
  private readonly machines: Machine[];
  private readonly aspect: number;
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
  ) {
    if (!supportsTopology(spec, topology)) {
      throw new Error(
        `this MoveSpec does not run on ${topology} (supported: ${spec.topologies.join(", ") || "none"})`,
      );
    }
    this.aspect = aspectRatio ?? spec.camera.aspectRatio;
    if (!(this.aspect > 0 && this.aspect < 100))
      throw new Error("aspectRatio must be a positive number");
    this.program = buildProgram(spec, topology);
    const emit = (e: Record<string, unknown> & { type: DetectionEvent["type"] }) => this.emit(e);
    this.machines = sidesPlan(spec.sides).machines.map((sides) =>
      createMachine(spec, this.program, sides, emit),
    );
  }

  get acceptedFrames(): number {
    return this.accepted;
  }
  get lastSeq(): number {
    return this._lastSeq;
  }

  private emit(e: Record<string, unknown> & { type: DetectionEvent["type"] }): void {
    // Fixed key order: type, event_seq, then the envelope and payload as built.
    const { type, ...rest } = e;
    const ev = { type, event_seq: ++this.eventSeq, ...rest } as Record<string, unknown>;
    if (type === "rep.completed") ev.total = this.machines.reduce((n, m) => n + m.state.count, 0);
    this.out.push(ev as unknown as DetectionEvent);
  }

  push(frame: unknown): PushResult {
    if (this.finished)
      return {
        ok: false,
        reason: "SESSION_FINISHED",
        message: "finish() was called; the session takes no more frames",
      };
    const mem = this.program.memory;
    const rejection = readFrame(
      frame,
      this.program.keypointCount,
      this.aspect,
      this._lastSeq,
      this.lastT,
      mem.frame,
    );
    if (rejection) return { ok: false, ...rejection };
    const f = frame as { seq: number; t: number };
    this._lastSeq = f.seq;
    this.lastT = f.t;
    if (this.firstT === null) this.firstT = f.t;
    this.accepted++;
    this.out = [];
    this.evaluate(f.seq, f.t);
    return { ok: true, events: this.out };
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
    const summary = this.summary();
    if (!this.finished) {
      this.finished = true;
      this.emit({
        type: "session.summary",
        seq: this._lastSeq,
        t: this.lastT === Number.NEGATIVE_INFINITY ? 0 : this.lastT,
        ...summary,
      });
    }
    return { events: this.out, summary };
  }

  private summary(): SessionSummary {
    const reps = this.machines
      .flatMap((m) => m.state.reps)
      .sort((a, b) => a.end_t - b.end_t || a.start_t - b.start_t);
    const holds = this.machines.flatMap((m) => {
      const open = openHold(m, this.lastT);
      return open ? [...m.state.holds, open] : m.state.holds;
    });
    const count = this.machines.reduce((n, m) => n + m.state.count, 0);
    const summary: SessionSummary = {
      count,
      partials: this.machines.reduce((n, m) => n + m.state.partials, 0),
      score: reps.length > 0 ? Math.round(reps.reduce((n, r) => n + r.score, 0) / reps.length) : 0,
      reps,
      holds,
      longest_hold: holds.reduce((n, h) => Math.max(n, h.elapsed), 0),
      frames: this.accepted,
      duration: this.firstT === null ? 0 : r3(this.lastT - this.firstT),
    };
    if (this.machines.length > 1) {
      // One machine per side (`sides: both`): each counts its own side.
      const { count: total, ...rest } = summary;
      const countOn = (side: SideKey) =>
        this.machines.find((m) => m.sides[0] === side)?.state.count ?? 0;
      return { count: total, counts: { left: countOn("left"), right: countOn("right") }, ...rest };
    }
    return summary;
  }

  snapshot(): EngineSnapshot {
    const mem = this.program.memory;
    return {
      format: "movespec-engine/1",
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
      state: encodeNumbers(mem.state),
      machines: this.machines.map((m) => structuredClone(m.state)),
    };
  }

  restore(snap: EngineSnapshot): void {
    const mem = this.program.memory;
    if (snap?.format !== "movespec-engine/1") throw new Error("not a MoveSpec engine snapshot");
    if (
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
      m.state = structuredClone(snap.machines[i]);
    });
  }

  signalValues(): Record<string, number> {
    const out: Record<string, number> = {};
    this.program.slots.forEach((s, i) => {
      out[s.side === "none" ? s.name : `${s.side}.${s.name}`] = this.program.memory.values[i];
    });
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
  return new EngineImpl(spec, topology, options.aspectRatio);
}

export function restoreEngine(spec: CompiledSpec, snapshot: EngineSnapshot): Engine {
  const engine = new EngineImpl(spec, snapshot.topology, snapshot.aspectRatio);
  engine.restore(snapshot);
  return engine;
}
