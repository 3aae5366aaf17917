/**
 * One detection state machine: tracking gate, phases with dwell and hysteresis, the repetition
 * cycle, the hold timer and form rules. `sides: both` runs two of these (left and right); every
 * other mode runs one, whose conditions read one side, the better-visible side (auto), both sides
 * at once (together) or whichever side moves (either).
 *
 * All mutable state is in `state`, a plain JSON-safe object (no NaN: unset times are null), so a
 * snapshot is a deep copy.
 */
import type { CompiledSpec, SidesMode } from "../compiled-spec.js";
import type { Expr } from "../expression/ast.js";
import {
  type DetectionEvent,
  type EventSide,
  type HoldRecord,
  type RepRecord,
  r3,
  type SignalStats,
  type Values,
} from "./events.js";
import type { Program, SideKey } from "./program.js";

type Emit = (e: Record<string, unknown> & { type: DetectionEvent["type"] }) => void;

export interface MachineState {
  autoSide: 0 | 1;
  /** The auto side has been chosen on a first tracked frame. */
  autoChosen: boolean;
  autoSince: number | null;
  tracked: boolean;
  gateFailSince: number | null;
  resetDone: boolean;
  phase: number;
  phaseSide: number;
  phaseSince: number | null;
  lastPhase: number;
  candidate: number;
  candidateSide: number;
  candidateSince: number | null;
  armed: boolean;
  startSince: number | null;
  inRep: boolean;
  stage: number;
  repStart: number;
  repSide: number;
  stageTimes: number[];
  phaseTime: number[];
  lastUpdate: number | null;
  /** Per metric signal and side: [min, max] (null until seen). */
  stats: ([number, number] | null)[];
  /** The same while resting in the start phase; a repetition's range of motion starts from it. */
  restStats: ([number, number] | null)[];
  progressExtreme: number | null;
  violations: string[];
  penalty: number;
  voided: boolean;
  count: number;
  partials: number;
  holdActive: boolean;
  holdCompleted: boolean;
  holdStart: number;
  holdLastIn: number;
  holdNextProgress: number;
  /** When the last hold ended: a new hold cannot start earlier (the phase may have been paused). */
  holdEndedAt: number | null;
  formSince: (number | null)[];
  formCooldownUntil: number[];
  reps: RepRecord[];
  holds: HoldRecord[];
}

/** Frame facts the engine computes once and passes to every machine. */
export interface FrameFacts {
  seq: number;
  t: number;
  /** Gate passed per side key. */
  gate: Record<SideKey, boolean>;
  /** Mean visibility of the gate landmarks per side (for auto). */
  visibility: Record<SideKey, number>;
}

const AUTO_MARGIN = 0.15;
const AUTO_AFTER = 0.5;
const EPS = 1e-9;
/** Side index meaning "both sides" (the start phase in `either` mode). */
const BOTH = 2;

interface Sided<T> {
  /** One entry per side in `sides`. */
  readonly bySide: readonly T[];
}

export class Machine {
  state: MachineState;
  /** Sides this machine reads: [x] for one side, [left, right] for auto, together, either. */
  readonly sides: readonly SideKey[];
  private readonly enter: Sided<() => boolean>[];
  private readonly stay: Sided<() => boolean>[];
  private readonly enterSlots: Sided<number[]>[];
  private readonly formWhen: Sided<() => boolean>[];
  private readonly formSlots: Sided<number[]>[];
  private readonly startWhen?: Sided<() => boolean>;
  /** Slots of the accumulated signals, per side: metrics, depth and progress signals. */
  private readonly statSlots: Sided<number[]>;
  private readonly statNames: string[];
  private readonly progressIndex: number;
  private readonly depthIndex: number;
  private readonly combine: "single" | "auto" | "together" | "either";
  /** In `either` mode, the start phase must hold on both sides (side index BOTH). */
  private readonly allSides: boolean[];

  constructor(
    private readonly spec: CompiledSpec,
    private readonly program: Program,
    readonly fixedSide: SideKey | undefined,
    private readonly emit: Emit,
  ) {
    const mode: SidesMode = spec.sides;
    this.combine =
      fixedSide !== undefined
        ? "single"
        : mode === "auto"
          ? "auto"
          : mode === "together"
            ? "together"
            : "either";
    this.sides = fixedSide !== undefined ? [fixedSide] : ["left", "right"];
    const each = <T>(f: (side: SideKey) => T): Sided<T> => ({ bySide: this.sides.map(f) });
    const cond = (e: Expr) => each((s) => program.compileCondition(e, s));
    const slots = (e: Expr) => each((s) => program.slotsOf(e, s));
    this.allSides = spec.phases.map(
      (_, i) => this.combine === "either" && spec.repetition?.cycle[0] === i,
    );
    this.enter = spec.phases.map((p) => cond(p.enter));
    this.stay = spec.phases.map((p) => cond(p.stay));
    this.enterSlots = spec.phases.map((p) => slots(p.enter));
    this.formWhen = spec.form.map((f) => cond(f.when));
    this.formSlots = spec.form.map((f) => slots(f.when));
    const rep = spec.repetition;
    if (rep?.start.when) this.startWhen = cond(rep.start.when);
    this.statNames = [...spec.metrics];
    const depth = spec.scoring.depth?.signal;
    if (depth && !this.statNames.includes(depth)) this.statNames.push(depth);
    const progress = rep?.partial.progress?.signal;
    if (progress && !this.statNames.includes(progress)) this.statNames.push(progress);
    this.progressIndex = progress ? this.statNames.indexOf(progress) : -1;
    this.depthIndex = depth ? this.statNames.indexOf(depth) : -1;
    this.statSlots = each((s) =>
      this.statNames.map((name) => {
        const def = spec.signals.find((d) => d.name === name)!;
        return program.slotIndex.get(`${def.sided ? s : "none"}:${name}`)!;
      }),
    );
    this.state = Machine.initialState(spec, this.statNames.length * this.sides.length);
  }

  static initialState(spec: CompiledSpec, statCount: number): MachineState {
    return {
      autoSide: 0,
      autoChosen: false,
      autoSince: null,
      tracked: true,
      gateFailSince: null,
      resetDone: false,
      phase: -1,
      phaseSide: 0,
      phaseSince: null,
      lastPhase: -1,
      candidate: -1,
      candidateSide: 0,
      candidateSince: null,
      armed: false,
      startSince: null,
      inRep: false,
      stage: 0,
      repStart: 0,
      repSide: 0,
      stageTimes: [],
      phaseTime: spec.phases.map(() => 0),
      lastUpdate: null,
      stats: Array.from({ length: statCount }, () => null),
      restStats: Array.from({ length: statCount }, () => null),
      progressExtreme: null,
      violations: [],
      penalty: 0,
      voided: false,
      count: 0,
      partials: 0,
      holdActive: false,
      holdCompleted: false,
      holdStart: 0,
      holdLastIn: 0,
      holdNextProgress: 0,
      holdEndedAt: null,
      formSince: spec.form.map(() => null),
      formCooldownUntil: spec.form.map(() => Number.MIN_SAFE_INTEGER),
      reps: [],
      holds: [],
    };
  }

  // ---------------------------------------------------------------- per frame

  step(f: FrameFacts): void {
    const s = this.state;
    if (this.combine === "auto") this.chooseSide(f);
    const ok = this.gateOk(f);
    if (ok) {
      if (!s.tracked) {
        this.emit({
          type: "tracking.regained",
          ...this.envelope(f),
          lost_for: r3(f.t - (s.gateFailSince ?? f.t)),
        });
        s.tracked = true;
      }
      s.gateFailSince = null;
      s.resetDone = false;
      this.updatePhase(f);
      this.updateRepetition(f);
      this.updateForm(f);
      this.updateHold(f, true);
      s.lastUpdate = f.t;
      return;
    }
    if (s.gateFailSince === null) s.gateFailSince = f.t;
    s.lastUpdate = null;
    if (s.tracked && f.t - s.gateFailSince >= this.spec.tracking.lostAfter - EPS) {
      s.tracked = false;
      s.candidate = -1;
      s.candidateSince = null;
      this.emit({
        type: "tracking.lost",
        ...this.envelope(f),
        since_t: s.gateFailSince,
        missing: this.missing(f),
      });
    }
    if (
      !s.tracked &&
      this.spec.tracking.onLost === "reset" &&
      !s.resetDone &&
      f.t - s.gateFailSince >= this.spec.tracking.resetAfter - EPS
    ) {
      s.resetDone = true;
      if (s.inRep) this.partial(f, "tracking_lost");
      s.inRep = false;
      s.phase = -1;
      s.lastPhase = -1;
      s.phaseSince = null;
      s.armed = false;
      s.startSince = null;
    }
    this.updateHold(f, false);
  }

  private gateOk(f: FrameFacts): boolean {
    switch (this.combine) {
      case "single":
        return f.gate[this.sides[0]];
      case "auto":
        return f.gate[this.sides[this.state.autoSide]];
      case "together":
        return f.gate.left && f.gate.right;
      case "either":
        return f.gate.left || f.gate.right;
    }
  }

  private missing(f: FrameFacts): string[] {
    const sides = this.combine === "auto" ? [this.sides[this.state.autoSide]] : this.sides;
    const out: string[] = [];
    for (const side of sides) {
      if (f.gate[side]) continue;
      const points = this.program.gatePoints[side];
      const names = this.program.gateNames[side];
      points.forEach((p, i) => {
        if (
          !(this.program.memory.points[p * 4 + 3] >= this.spec.tracking.minVisibility) &&
          !out.includes(names[i])
        )
          out.push(names[i]);
      });
    }
    return out;
  }

  private chooseSide(f: FrameFacts): void {
    const s = this.state;
    const cur = s.autoSide;
    const other = (1 - cur) as 0 | 1;
    const curKey = this.sides[cur];
    const otherKey = this.sides[other];
    if (!s.autoChosen) {
      // First frame: start on the better-visible side.
      s.autoChosen = true;
      if (f.visibility[otherKey] > f.visibility[curKey]) this.switchSide(other);
      return;
    }
    if (!f.gate[curKey] && f.gate[otherKey]) {
      this.switchSide(other);
      return;
    }
    if (f.visibility[otherKey] > f.visibility[curKey] + AUTO_MARGIN) {
      if (s.autoSince === null) s.autoSince = f.t;
      if (f.t - s.autoSince >= AUTO_AFTER - EPS && !s.inRep) this.switchSide(other);
    } else s.autoSince = null;
  }

  private switchSide(to: 0 | 1): void {
    this.state.autoSide = to;
    this.state.autoSince = null;
    this.state.candidate = -1;
    this.state.candidateSince = null;
  }

  // ---------------------------------------------------------------- conditions

  /** Side index on which phase i's enter condition holds, or -1. */
  private entering(i: number, f: FrameFacts): number {
    const fns = this.enter[i].bySide;
    switch (this.combine) {
      case "single":
        return fns[0]() ? 0 : -1;
      case "auto":
        return fns[this.state.autoSide]() ? this.state.autoSide : -1;
      case "together":
        return fns[0]() && fns[1]() ? 0 : -1;
      case "either":
        if (this.allSides[i]) {
          // Every side that can be seen must be at rest (and at least one must be seen).
          const seen = f.gate.left || f.gate.right;
          return seen && (!f.gate.left || fns[0]()) && (!f.gate.right || fns[1]()) ? BOTH : -1;
        }
        if (f.gate.left && fns[0]()) return 0;
        if (f.gate.right && fns[1]()) return 1;
        return -1;
    }
  }

  private staying(i: number, side: number, f: FrameFacts): boolean {
    const fns = this.stay[i].bySide;
    switch (this.combine) {
      case "single":
        return fns[0]();
      case "auto":
        return fns[this.state.autoSide]();
      case "together":
        return fns[0]() && fns[1]();
      case "either":
        if (side === BOTH) return (!f.gate.left || fns[0]()) && (!f.gate.right || fns[1]());
        // While the side that entered is hidden, keep the phase (pause).
        return f.gate[this.sides[side]] ? fns[side]() : true;
    }
  }

  private anySide(fns: readonly (() => boolean)[], f: FrameFacts, all: boolean): boolean {
    switch (this.combine) {
      case "single":
        return fns[0]();
      case "auto":
        return fns[this.state.autoSide]();
      default: {
        const a = f.gate.left && fns[0]();
        const b = f.gate.right && fns[1]();
        return all ? a && b : a || b;
      }
    }
  }

  // ---------------------------------------------------------------- phases

  private updatePhase(f: FrameFacts): void {
    const s = this.state;
    if (s.phase >= 0 && !this.staying(s.phase, s.phaseSide, f)) {
      const left = s.phase;
      s.phase = -1;
      s.phaseSince = null;
      this.onLeave(left, f);
    }
    if (s.phase >= 0) return;
    let found = -1;
    let side = 0;
    for (let i = 0; i < this.enter.length; i++) {
      side = this.entering(i, f);
      if (side >= 0) {
        found = i;
        break;
      }
    }
    if (found < 0) {
      s.candidate = -1;
      s.candidateSince = null;
      return;
    }
    if (found !== s.candidate || side !== s.candidateSide || s.candidateSince === null) {
      s.candidate = found;
      s.candidateSide = side;
      s.candidateSince = f.t;
    }
    if (f.t - s.candidateSince >= this.spec.phases[found].minDwell - EPS)
      this.confirm(found, side, s.candidateSince, f);
  }

  private confirm(i: number, side: number, since: number, f: FrameFacts): void {
    const s = this.state;
    s.phase = i;
    s.phaseSide = side;
    s.phaseSince = since;
    s.candidate = -1;
    s.candidateSince = null;
    const isNew = i !== s.lastPhase;
    if (isNew) {
      const ev: Record<string, unknown> & { type: "phase.entered" } = {
        type: "phase.entered",
        ...this.envelope(f, side),
        phase: this.spec.phases[i].name,
      };
      if (s.lastPhase >= 0) ev.previous = this.spec.phases[s.lastPhase].name;
      ev.since_t = since;
      ev.values = this.values(this.enterSlots[i], side);
      this.emit(ev);
    }
    s.lastPhase = i;
    this.onConfirm(i, side, since, f);
  }

  // ---------------------------------------------------------------- repetitions

  private onLeave(phase: number, f: FrameFacts): void {
    const rep = this.spec.repetition;
    const s = this.state;
    if (!rep || s.inRep || phase !== rep.cycle[0] || !s.armed) return;
    s.inRep = true;
    s.stage = 1;
    s.repStart = f.t;
    s.repSide = s.phaseSide;
    s.stageTimes = [];
    s.phaseTime = this.spec.phases.map(() => 0);
    // The range of motion includes the rest just before the repetition.
    s.stats = s.restStats.map((x) => (x ? [x[0], x[1]] : null));
    s.restStats = s.restStats.map(() => null);
    s.progressExtreme = null;
    s.violations = [];
    s.penalty = 0;
    s.voided = false;
  }

  private onConfirm(i: number, side: number, since: number, f: FrameFacts): void {
    const rep = this.spec.repetition;
    const s = this.state;
    if (!rep || !s.inRep) return;
    const cycle = rep.cycle;
    if (i === cycle[s.stage]) {
      if (i === rep.target) s.repSide = side;
      s.stageTimes.push(since);
      s.stage++;
      if (s.stage === cycle.length) this.complete(since, f);
      return;
    }
    if (i === cycle[0]) {
      // Back at the start before the cycle completed: a partial repetition, if it went far enough.
      const progress = this.progress();
      const reached =
        s.stage > 1 || (progress !== undefined && progress >= rep.partial.minProgress);
      if (rep.partial.enabled && reached) this.partial(f, "turned_back");
      s.inRep = false;
    }
  }

  private progress(): number | undefined {
    const p = this.spec.repetition?.partial.progress;
    const x = this.state.progressExtreme;
    if (!p || x === null) return undefined;
    const v = (p.from - x) / (p.from - p.to);
    return v < 0 ? 0 : Math.min(v, 1);
  }

  private complete(endT: number, f: FrameFacts): void {
    const rep = this.spec.repetition!;
    const s = this.state;
    const duration = endT - s.repStart;
    s.inRep = false;
    if (s.voided) this.partial(f, "voided", endT);
    else if (duration < rep.minDuration - EPS) this.partial(f, "too_fast", endT);
    else if (duration > rep.maxDuration + EPS) this.partial(f, "too_slow", endT);
    else {
      s.count++;
      const side = this.eventSide(s.repSide);
      const metrics = this.metrics(endT);
      const score = this.score();
      const record: RepRecord = {
        count: s.count,
        start_t: s.repStart,
        end_t: endT,
        score,
        violations: [...s.violations],
        metrics,
      };
      if (side) record.side = side;
      s.reps.push(record);
      this.emit({
        type: "rep.completed",
        ...this.envelope(f, s.repSide),
        count: s.count,
        total: s.count,
        start_t: s.repStart,
        end_t: endT,
        score,
        violations: [...s.violations],
        metrics,
        values: this.values(this.enterSlots[rep.cycle[rep.cycle.length - 1]], s.repSide),
      });
    }
  }

  private partial(f: FrameFacts, reason: string, endT = f.t): void {
    const s = this.state;
    const rep = this.spec.repetition!;
    s.partials++;
    const ev: Record<string, unknown> & { type: "rep.partial" } = {
      type: "rep.partial",
      ...this.envelope(f, s.repSide),
      reason,
      start_t: s.repStart,
      duration: r3(endT - s.repStart),
      reached: rep.cycle.slice(1, s.stage).map((i) => this.spec.phases[i].name),
    };
    const progress = this.progress();
    if (progress !== undefined) ev.progress = r3(progress);
    if (s.violations.length > 0) ev.violations = [...s.violations];
    ev.values = this.statValues(s.repSide);
    this.emit(ev);
  }

  private updateRepetition(f: FrameFacts): void {
    const rep = this.spec.repetition;
    const s = this.state;
    if (!rep) return;
    if (!s.armed) {
      const inStart = s.phase === rep.start.phase;
      const when = !this.startWhen || this.anySide(this.startWhen.bySide, f, true);
      if (inStart && when) {
        if (s.startSince === null) s.startSince = f.t;
        if (f.t - s.startSince >= rep.start.for - EPS) s.armed = true;
      } else s.startSince = null;
    }
    if (!s.inRep) {
      if (s.phase === rep.cycle[0]) this.accumulate(s.restStats);
      return;
    }
    if (f.t - s.repStart > rep.maxDuration + EPS) {
      s.inRep = false;
      this.partial(f, "timeout");
      return;
    }
    // Accumulate time per phase and signal extremes.
    if (s.lastUpdate !== null && s.phase >= 0) s.phaseTime[s.phase] += f.t - s.lastUpdate;
    const values = this.program.memory.values;
    this.accumulate(s.stats);
    const p = rep.partial.progress;
    if (p && this.progressIndex >= 0) {
      let side = 0;
      if (this.combine === "auto") side = s.autoSide;
      else if (this.combine === "either")
        side = s.phase >= 0 && s.phaseSide !== BOTH ? s.phaseSide : s.repSide;
      const towardsMin = p.to < p.from;
      for (let k = side === BOTH ? 0 : side; k <= (side === BOTH ? 1 : side); k++) {
        const v = values[this.statSlots.bySide[k][this.progressIndex]];
        if (Number.isNaN(v)) continue;
        const x = s.progressExtreme;
        if (x === null || (towardsMin ? v < x : v > x)) s.progressExtreme = v;
      }
    }
  }

  /** Widens per-signal [min, max] pairs with this frame's values. */
  private accumulate(stats: ([number, number] | null)[]): void {
    const values = this.program.memory.values;
    const n = this.statNames.length;
    for (let k = 0; k < this.sides.length; k++) {
      const slots = this.statSlots.bySide[k];
      for (let j = 0; j < n; j++) {
        const v = values[slots[j]];
        if (Number.isNaN(v)) continue;
        const st = stats[k * n + j];
        if (st === null) stats[k * n + j] = [v, v];
        else {
          if (v < st[0]) st[0] = v;
          if (v > st[1]) st[1] = v;
        }
      }
    }
  }

  private metrics(endT: number): RepRecord["metrics"] {
    const s = this.state;
    const rep = this.spec.repetition!;
    const tempo: number[] = [];
    let prev = s.repStart;
    for (const t of s.stageTimes) {
      tempo.push(r3(t - prev));
      prev = t;
    }
    const phaseTime: Record<string, number> = {};
    for (const i of new Set(rep.cycle)) phaseTime[this.spec.phases[i].name] = r3(s.phaseTime[i]);
    const signals: Record<string, SignalStats> = {};
    const n = this.statNames.length;
    const report = (k: number, prefix: string) => {
      for (let j = 0; j < this.spec.metrics.length; j++) {
        const st = s.stats[k * n + this.statNames.indexOf(this.spec.metrics[j])];
        if (st)
          signals[prefix + this.spec.metrics[j]] = {
            min: r3(st[0]),
            max: r3(st[1]),
            range: r3(st[1] - st[0]),
          };
      }
    };
    if (this.combine === "together") {
      for (let k = 0; k < this.sides.length; k++) report(k, `${this.sides[k]}.`);
    } else report(this.reportSide(s.repSide), "");
    return { duration: r3(endT - s.repStart), tempo, phase_time: phaseTime, signals };
  }

  private score(): number {
    const s = this.state;
    let score = 100 - s.penalty;
    const depth = this.spec.scoring.depth;
    if (depth && this.depthIndex >= 0) {
      const n = this.statNames.length;
      const st = s.stats[this.reportSide(s.repSide) * n + this.depthIndex];
      if (st) {
        const extreme = depth.to < depth.from ? st[0] : st[1];
        let frac = (depth.from - extreme) / (depth.from - depth.to);
        frac = frac < 0 ? 0 : Math.min(frac, 1);
        score -= depth.weight * (1 - frac);
      }
    }
    return Math.round(score < 0 ? 0 : Math.min(score, 100));
  }

  // ---------------------------------------------------------------- form rules

  private updateForm(f: FrameFacts): void {
    const s = this.state;
    const rules = this.spec.form;
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i];
      const applies =
        rule.during.kind === "always" ||
        (rule.during.kind === "rep"
          ? s.inRep
          : s.phase >= 0 && rule.during.phases.includes(s.phase));
      if (!applies || !this.anySide(this.formWhen[i].bySide, f, false)) {
        s.formSince[i] = null;
        continue;
      }
      const since = s.formSince[i] ?? f.t;
      s.formSince[i] = since;
      if (f.t - since < rule.for - EPS || f.t < s.formCooldownUntil[i]) continue;
      s.formCooldownUntil[i] = f.t + rule.cooldown;
      const side =
        this.combine === "either"
          ? s.inRep
            ? s.repSide
            : s.phaseSide
          : this.combine === "auto"
            ? s.autoSide
            : 0;
      const ev: Record<string, unknown> & { type: "form.violation" } = {
        type: "form.violation",
        ...this.envelope(f, side),
        rule: rule.id,
        severity: rule.severity,
        message: rule.message,
      };
      if (s.inRep) {
        ev.rep = s.count + 1;
        if (!s.violations.includes(rule.id)) {
          s.violations.push(rule.id);
          s.penalty += rule.penalty;
        }
        if (rule.voidsRep) s.voided = true;
      }
      ev.values = this.values(this.formSlots[i], side);
      this.emit(ev);
    }
  }

  // ---------------------------------------------------------------- holds

  private updateHold(f: FrameFacts, tracked: boolean): void {
    const hold = this.spec.hold;
    if (!hold) return;
    const s = this.state;
    const inPhase = tracked && s.phase === hold.phase;
    const phase = this.spec.phases[hold.phase].name;
    if (!s.holdActive) {
      if (!inPhase) return;
      s.holdActive = true;
      s.holdCompleted = false;
      // From when the phase was entered, unless the phase outlasted an earlier, broken hold.
      const since = s.phaseSince;
      s.holdStart =
        since !== null && (s.holdEndedAt === null || since >= s.holdEndedAt) ? since : f.t;
      s.holdLastIn = f.t;
      s.holdNextProgress = hold.progressEvery;
      this.emit({
        type: "hold.started",
        ...this.envelope(f, s.phaseSide),
        phase,
        since_t: s.holdStart,
        target: hold.target,
      });
    }
    if (inPhase) {
      s.holdLastIn = f.t;
      const elapsed = f.t - s.holdStart;
      if (s.holdCompleted) return;
      if (elapsed >= hold.target - EPS) {
        s.holdCompleted = true;
        this.emit({
          type: "hold.completed",
          ...this.envelope(f, s.phaseSide),
          phase,
          elapsed: r3(elapsed),
        });
        return;
      }
      if (hold.progressEvery > 0 && elapsed >= s.holdNextProgress - EPS) {
        s.holdNextProgress =
          (Math.floor(elapsed / hold.progressEvery + EPS) + 1) * hold.progressEvery;
        this.emit({
          type: "hold.progress",
          ...this.envelope(f, s.phaseSide),
          phase,
          elapsed: r3(elapsed),
          remaining: r3(hold.target - elapsed),
        });
      }
      return;
    }
    if (f.t - s.holdLastIn <= hold.grace + EPS) return;
    const elapsed = r3(s.holdLastIn - s.holdStart);
    if (!s.holdCompleted) {
      this.emit({
        type: "hold.broken",
        ...this.envelope(f, s.phaseSide),
        phase,
        elapsed,
        reason: tracked ? "left_phase" : "tracking_lost",
      });
    }
    const record: HoldRecord = { phase, start_t: s.holdStart, elapsed, completed: s.holdCompleted };
    const side = this.eventSide(s.phaseSide);
    if (side) record.side = side;
    s.holds.push(record);
    s.holdActive = false;
    s.holdEndedAt = f.t;
  }

  /** The open hold at the end of a session, if any. */
  openHold(lastT: number): HoldRecord | undefined {
    const s = this.state;
    if (!this.spec.hold || !s.holdActive) return undefined;
    const record: HoldRecord = {
      phase: this.spec.phases[this.spec.hold.phase].name,
      start_t: s.holdStart,
      elapsed: r3(Math.min(lastT, s.holdLastIn) - s.holdStart),
      completed: s.holdCompleted,
    };
    const side = this.eventSide(s.phaseSide);
    if (side) record.side = side;
    return record;
  }

  // ---------------------------------------------------------------- reporting

  private reportSide(side: number): number {
    if (this.combine === "auto") return this.state.autoSide;
    if (this.combine === "either") return side === BOTH ? 0 : side;
    return 0;
  }

  private eventSide(side: number): EventSide | undefined {
    switch (this.combine) {
      case "single":
        return this.sides[0] === "none" ? undefined : (this.sides[0] as EventSide);
      case "auto":
        return this.sides[this.state.autoSide] as EventSide;
      case "together":
        return "both";
      case "either":
        return side === BOTH ? "both" : (this.sides[side] as EventSide);
    }
  }

  private envelope(f: FrameFacts, side = 0): { seq: number; t: number; side?: EventSide } {
    const es = this.eventSide(side);
    return es ? { seq: f.seq, t: f.t, side: es } : { seq: f.seq, t: f.t };
  }

  private values(slots: Sided<number[]>, side: number): Values {
    const out: Values = {};
    const v = this.program.memory.values;
    const put = (k: number, qualified: boolean) => {
      for (const slot of slots.bySide[k]) {
        const info = this.program.slots[slot];
        const x = v[slot];
        if (Number.isNaN(x)) continue;
        const key = qualified && info.side !== "none" ? `${info.side}.${info.name}` : info.name;
        out[key] = r3(x);
      }
    };
    if (this.combine === "together" || (this.combine === "either" && side === BOTH)) {
      put(0, true);
      put(1, true);
    } else put(this.reportSide(side), false);
    return out;
  }

  private statValues(side: number): Values {
    const out: Values = {};
    const n = this.statNames.length;
    const k = this.reportSide(side);
    const s = this.state;
    this.statNames.forEach((name, j) => {
      const st = s.stats[k * n + j];
      if (!st) return;
      const def = this.spec.repetition?.partial.progress;
      // Report the extreme reached in the direction of the movement.
      const towardsMin = def && def.signal === name ? def.to < def.from : true;
      out[name] = r3(towardsMin ? st[0] : st[1]);
    });
    return out;
  }
}
