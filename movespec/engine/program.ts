/**
 * Turns a CompiledSpec into closures over typed arrays for one topology: point slots (landmarks
 * and midpoints), signal slots (a signal on a side), and conditions per side. Built once per
 * engine; per frame nothing is allocated.
 */
import type { CompiledSpec, SignalDef } from "../compiled-spec.js";
import type { Expr } from "../expression/ast.js";
import { FUNCTIONS } from "../expression/functions.js";
import { forEachRef } from "../expression/refs.js";
import {
  concreteNames,
  parseLandmarkName,
  type Side,
  scalePairs,
  TOPOLOGIES,
  type TopologyName,
} from "../topology.js";
import { FILTER_STATE_SIZE, makeFilter, resetFilter } from "./filters.js";

export type SideKey = "left" | "right" | "none";
const RAD = 180 / Math.PI;

/** Shared per-frame memory the closures read and write. */
export interface Memory {
  /** Current frame's keypoints: x, y, z, visibility per keypoint. */
  readonly frame: Float64Array;
  /** Point slots: x, y, z, visibility. */
  readonly points: Float64Array;
  /** Smoothed signal values per slot (hold their last value while stale). */
  readonly values: Float64Array;
  /** 1 when the slot was computed on this frame. */
  readonly fresh: Uint8Array;
  /** Filter, velocity and peak state; the scale follower lives at index 0..1. */
  readonly state: Float64Array;
  t: number;
}

export interface SignalSlot {
  readonly name: string;
  readonly side: SideKey;
  readonly def: SignalDef;
  /** Point slots that must be visible for the slot to be computed. */
  readonly points: readonly number[];
  /** Slots it reads (must be fresh). */
  readonly deps: readonly number[];
  readonly compute: () => number;
  readonly filter: (state: Float64Array, at: number, x: number, t: number) => number;
  readonly filterAt: number;
}

export interface Program {
  readonly topology: TopologyName;
  readonly keypointCount: number;
  readonly memory: Memory;
  readonly pointSources: readonly (readonly [number, number])[];
  readonly slots: readonly SignalSlot[];
  readonly slotIndex: ReadonlyMap<string, number>;
  /** Pairs of point slots whose mean distance is the body scale (empty when no signal needs it). */
  readonly scalePoints: readonly (readonly [number, number])[];
  /** Point slots of the tracking gate, per side. */
  readonly gatePoints: Readonly<Record<SideKey, readonly number[]>>;
  readonly gateNames: Readonly<Record<SideKey, readonly string[]>>;
  compileCondition(e: Expr, side: SideKey): () => boolean;
  /** Slots a condition reads on a side, for reporting values. */
  slotsOf(e: Expr, side: SideKey): number[];
  resetFilters(): void;
}

export const SCALE_TIME_CONSTANT = 5;

export function slotKey(name: string, side: SideKey): string {
  return `${side}:${name}`;
}

export function buildProgram(spec: CompiledSpec, topologyName: TopologyName): Program {
  const topology = TOPOLOGIES[topologyName];
  const pointKeys = new Map<string, number>();
  const pointSources: [number, number][] = [];
  const pointOf = (concrete: string[]): number => {
    const key = concrete.join("+");
    let i = pointKeys.get(key);
    if (i === undefined) {
      const idx = concrete.map((c) => {
        const k = topology.index.get(c);
        if (k === undefined) throw new Error(`landmark ${c} is not in ${topologyName}`);
        return k;
      });
      i = pointSources.length;
      pointSources.push([idx[0], idx.length > 1 ? idx[1] : -1]);
      pointKeys.set(key, i);
    }
    return i;
  };
  const landmarkPoint = (name: string, side: SideKey): number => {
    const ref = parseLandmarkName(name);
    if (!ref) throw new Error(`unknown landmark ${name}`);
    return pointOf(concreteNames(ref, side === "none" ? undefined : side));
  };

  const usesScale = spec.signals.some((s) => usesScaleFn(s.expr));
  const scalePoints = usesScale
    ? scalePairs(spec.scale).map(
        ([a, b]) => [landmarkPoint(a, "none"), landmarkPoint(b, "none")] as const,
      )
    : [];

  // Decide which (signal, side) slots exist: every sided signal on each evaluated side, plus
  // whatever side-qualified references need.
  const evaluated: SideKey[] =
    spec.sides === "none"
      ? ["none"]
      : spec.sides === "left"
        ? ["left"]
        : spec.sides === "right"
          ? ["right"]
          : ["left", "right"];
  const defs = new Map(spec.signals.map((s) => [s.name, s]));
  const needed = new Set<string>();
  const need = (name: string, side: SideKey) => {
    const def = defs.get(name)!;
    const s: SideKey = def.sided ? side : "none";
    const key = slotKey(name, s);
    if (needed.has(key)) return;
    needed.add(key);
    forEachRef(def.expr, (ref) => need(ref.name, ref.side ?? s));
  };
  // Slots follow from what the phases, rules and metrics read on each evaluated side.
  const roots: Expr[] = [
    ...spec.phases.flatMap((ph) => [ph.enter, ph.stay]),
    ...spec.form.map((r) => r.when),
    ...(spec.repetition?.start.when ? [spec.repetition.start.when] : []),
  ];
  const named = [
    ...spec.metrics,
    spec.scoring.depth?.signal,
    spec.repetition?.partial.progress?.signal,
  ];
  for (const side of evaluated) {
    for (const e of roots) forEachRef(e, (ref) => need(ref.name, ref.side ?? side));
    for (const name of named) if (name && defs.has(name)) need(name, side);
  }

  let stateSize = 2; // scale follower: value, last t
  const allocState = (n: number) => {
    const at = stateSize;
    stateSize += n;
    return at;
  };
  const slotIndex = new Map<string, number>();
  const pendingSlots: { name: string; side: SideKey; def: SignalDef }[] = [];
  for (const def of spec.signals) {
    for (const side of ["none", "left", "right"] as SideKey[]) {
      if (needed.has(slotKey(def.name, side))) {
        slotIndex.set(slotKey(def.name, side), pendingSlots.length);
        pendingSlots.push({ name: def.name, side, def });
      }
    }
  }

  // Memory is created before the closures so they can capture the arrays directly.
  const memoryPlaceholder = { t: 0 } as { t: number };
  const compiledSlots: SignalSlot[] = [];
  const valueArrays: { values?: Float64Array; points?: Float64Array; state?: Float64Array } = {};
  const statefulInits: ((state: Float64Array) => void)[] = [];

  const compileValueWith = (
    e: Expr,
    side: SideKey,
    pts: Set<number>,
    deps: Set<number>,
  ): (() => number) => {
    switch (e.kind) {
      case "num": {
        const v = e.value;
        return () => v;
      }
      case "ref": {
        const def = defs.get(e.name)!;
        const s: SideKey = e.side ?? (def.sided ? side : "none");
        const idx = slotIndex.get(slotKey(e.name, def.sided ? s : "none"))!;
        deps.add(idx);
        return () => valueArrays.values![idx];
      }
      case "neg": {
        const f = compileValueWith(e.operand, side, pts, deps);
        return () => -f();
      }
      case "arith": {
        const a = compileValueWith(e.left, side, pts, deps);
        const b = compileValueWith(e.right, side, pts, deps);
        switch (e.op) {
          case "+":
            return () => a() + b();
          case "-":
            return () => a() - b();
          case "*":
            return () => a() * b();
          case "/":
            return () => a() / b();
        }
        break;
      }
      case "call":
        return compileCall(e, side, pts, deps);
    }
    throw new Error(`not a value: ${e.kind}`);
  };

  const compileCall = (
    e: Expr & { kind: "call" },
    side: SideKey,
    pts: Set<number>,
    deps: Set<number>,
  ): (() => number) => {
    const lm = (i: number) => {
      const p = landmarkPoint((e.args[i] as Expr & { kind: "ref" }).name, side);
      pts.add(p);
      return p * 4;
    };
    const P = () => valueArrays.points!;
    switch (e.fn) {
      case "angle":
      case "angle2d": {
        const a = lm(0);
        const b = lm(1);
        const c = lm(2);
        const allow3d = e.fn === "angle";
        return () => {
          const q = P();
          const ux = q[a] - q[b];
          const uy = q[a + 1] - q[b + 1];
          const vx = q[c] - q[b];
          const vy = q[c + 1] - q[b + 1];
          let uz = 0;
          let vz = 0;
          if (allow3d) {
            const az = q[a + 2];
            const bz = q[b + 2];
            const cz = q[c + 2];
            if (!Number.isNaN(az) && !Number.isNaN(bz) && !Number.isNaN(cz)) {
              uz = az - bz;
              vz = cz - bz;
            }
          }
          const nu = Math.sqrt(ux * ux + uy * uy + uz * uz);
          const nv = Math.sqrt(vx * vx + vy * vy + vz * vz);
          if (nu === 0 || nv === 0) return Number.NaN;
          let cos = (ux * vx + uy * vy + uz * vz) / (nu * nv);
          if (cos > 1) cos = 1;
          else if (cos < -1) cos = -1;
          return Math.acos(cos) * RAD;
        };
      }
      case "angle_to_vertical": {
        const a = lm(0);
        const b = lm(1);
        return () => {
          const q = P();
          const dx = q[b] - q[a];
          const dy = q[b + 1] - q[a + 1];
          const n = Math.sqrt(dx * dx + dy * dy);
          if (n === 0) return Number.NaN;
          let cos = dy / n;
          if (cos > 1) cos = 1;
          else if (cos < -1) cos = -1;
          return Math.acos(cos) * RAD;
        };
      }
      case "angle_to_horizontal": {
        const a = lm(0);
        const b = lm(1);
        return () => {
          const q = P();
          const dx = Math.abs(q[b] - q[a]);
          const dy = q[a + 1] - q[b + 1];
          if (dx === 0 && dy === 0) return Number.NaN;
          return Math.atan2(dy, dx) * RAD;
        };
      }
      case "distance":
      case "dx":
      case "dy":
      case "above": {
        const a = lm(0);
        const b = lm(1);
        const fn = e.fn;
        return () => {
          const q = P();
          const scale = valueArrays.state![0];
          if (!(scale > 0)) return Number.NaN;
          const dx = q[b] - q[a];
          const dy = q[b + 1] - q[a + 1];
          if (fn === "distance") return Math.sqrt(dx * dx + dy * dy) / scale;
          if (fn === "dx") return dx / scale;
          if (fn === "dy") return dy / scale;
          return dy / scale;
        };
      }
      case "visibility": {
        const a = lm(0);
        return () => P()[a + 3];
      }
      case "velocity": {
        const f = compileValueWith(e.args[0], side, pts, deps);
        const at = allocState(2);
        statefulInits.push((s) => {
          s[at] = Number.NaN;
          s[at + 1] = Number.NaN;
        });
        return () => {
          const s = valueArrays.state!;
          const x = f();
          const prev = s[at];
          const dt = memoryPlaceholder.t - s[at + 1];
          s[at] = x;
          s[at + 1] = memoryPlaceholder.t;
          if (Number.isNaN(prev) || !(dt > 0)) return 0;
          return (x - prev) / dt;
        };
      }
      case "peak":
      case "trough": {
        const f = compileValueWith(e.args[0], side, pts, deps);
        const tau = (e.args[1] as Expr & { kind: "num" }).value;
        const sign = e.fn === "peak" ? 1 : -1;
        const at = allocState(2);
        statefulInits.push((s) => {
          s[at] = Number.NaN;
          s[at + 1] = Number.NaN;
        });
        return () => {
          const s = valueArrays.state!;
          const x = f();
          if (Number.isNaN(x)) return s[at];
          const prev = s[at];
          const dt = memoryPlaceholder.t - s[at + 1];
          s[at + 1] = memoryPlaceholder.t;
          if (Number.isNaN(prev) || sign * (x - prev) >= 0) {
            s[at] = x;
            return x;
          }
          const y = prev + (1 - Math.exp(-dt / tau)) * (x - prev);
          s[at] = y;
          return y;
        };
      }
      case "abs": {
        const f = compileValueWith(e.args[0], side, pts, deps);
        return () => Math.abs(f());
      }
      case "min":
      case "max":
      case "mean": {
        const fs = e.args.map((a) => compileValueWith(a, side, pts, deps));
        const fn = e.fn;
        if (fs.length === 1) return fs[0];
        if (fs.length === 2) {
          const [a, b] = fs;
          if (fn === "min") return () => Math.min(a(), b());
          if (fn === "max") return () => Math.max(a(), b());
          return () => (a() + b()) / 2;
        }
        return () => {
          let acc =
            fn === "min" ? Number.POSITIVE_INFINITY : fn === "max" ? Number.NEGATIVE_INFINITY : 0;
          for (let i = 0; i < fs.length; i++) {
            const v = fs[i]();
            if (fn === "min") acc = v < acc || Number.isNaN(v) ? v : acc;
            else if (fn === "max") acc = v > acc || Number.isNaN(v) ? v : acc;
            else acc += v;
          }
          return fn === "mean" ? acc / fs.length : acc;
        };
      }
    }
    throw new Error(`unknown function ${e.fn}`);
  };

  for (const p of pendingSlots) {
    const pts = new Set<number>();
    const deps = new Set<number>();
    const compute = compileValueWith(p.def.expr, p.side, pts, deps);
    compiledSlots.push({
      name: p.name,
      side: p.side,
      def: p.def,
      points: [...pts],
      deps: [...deps],
      compute,
      filter: makeFilter(p.def.smoothing),
      filterAt: allocState(FILTER_STATE_SIZE),
    });
  }

  // Tracking gate points per side.
  const gatePoints: Record<SideKey, number[]> = { none: [], left: [], right: [] };
  const gateNames: Record<SideKey, string[]> = { none: [], left: [], right: [] };
  for (const side of evaluated) {
    for (const name of spec.tracking.landmarks) {
      const ref = parseLandmarkName(name)!;
      if (ref.kind === "sided" && side === "none") continue;
      gatePoints[side].push(landmarkPoint(name, side));
      gateNames[side].push(concreteNames(ref, side === "none" ? undefined : side).join("+"));
    }
  }

  const memory: Memory = {
    frame: new Float64Array(topology.keypointCount * 4),
    points: new Float64Array(pointSources.length * 4),
    values: new Float64Array(compiledSlots.length).fill(Number.NaN),
    fresh: new Uint8Array(compiledSlots.length),
    state: new Float64Array(stateSize),
    get t() {
      return memoryPlaceholder.t;
    },
    set t(v: number) {
      memoryPlaceholder.t = v;
    },
  };
  valueArrays.values = memory.values;
  valueArrays.points = memory.points;
  valueArrays.state = memory.state;
  const resetFilters = () => {
    memory.state[0] = Number.NaN;
    memory.state[1] = Number.NaN;
    for (const init of statefulInits) init(memory.state);
    for (const s of compiledSlots) resetFilter(memory.state, s.filterAt);
  };
  resetFilters();

  const compileCondition = (e: Expr, side: SideKey): (() => boolean) => {
    const noPts = new Set<number>();
    const noDeps = new Set<number>();
    const cond = (n: Expr): (() => boolean) => {
      switch (n.kind) {
        case "and": {
          const a = cond(n.left);
          const b = cond(n.right);
          return () => a() && b();
        }
        case "or": {
          const a = cond(n.left);
          const b = cond(n.right);
          return () => a() || b();
        }
        case "not": {
          const a = cond(n.operand);
          return () => !a();
        }
        case "compare": {
          const a = compileValueWith(n.left, side, noPts, noDeps);
          const b = compileValueWith(n.right, side, noPts, noDeps);
          switch (n.op) {
            case "<":
              return () => a() < b();
            case "<=":
              return () => a() <= b();
            case ">":
              return () => a() > b();
            case ">=":
              return () => a() >= b();
          }
        }
      }
      throw new Error(`not a condition: ${n.kind}`);
    };
    return cond(e);
  };

  const slotsOf = (e: Expr, side: SideKey): number[] => {
    const out: number[] = [];
    forEachRef(e, (ref) => {
      const def = defs.get(ref.name)!;
      const s: SideKey = ref.side ?? (def.sided ? side : "none");
      const idx = slotIndex.get(slotKey(ref.name, def.sided ? s : "none"));
      if (idx !== undefined && !out.includes(idx)) out.push(idx);
    });
    return out;
  };

  return {
    topology: topologyName,
    keypointCount: topology.keypointCount,
    memory,
    pointSources,
    slots: compiledSlots,
    slotIndex,
    scalePoints,
    gatePoints,
    gateNames,
    compileCondition,
    slotsOf,
    resetFilters,
  };
}

function usesScaleFn(e: Expr): boolean {
  switch (e.kind) {
    case "call":
      return FUNCTIONS[e.fn]?.scaled === true || e.args.some(usesScaleFn);
    case "neg":
    case "not":
      return usesScaleFn(e.operand);
    case "arith":
    case "compare":
    case "and":
    case "or":
      return usesScaleFn(e.left) || usesScaleFn(e.right);
    default:
      return false;
  }
}

export type { Side };
