/**
 * Reads `repetition`: the cycle of phases, the target phase, the allowed duration (`within`),
 * the start condition and partial repetitions. Any error leaves the repetition undefined.
 */
import type { PhaseDef, RepetitionDef } from "../compiled-spec.js";
import type { Position } from "../issues.js";
import { conjunctionIntervals, singleComparison } from "./intervals.js";
import { phaseIndex } from "./phase-ref.js";
import { readCondition } from "./read-phases.js";
import { at, type Reader } from "./reader.js";
import type { YEntry, YMap, YNode } from "./yaml-tree.js";

type Start = { phase: number; for: number; when?: RepetitionDef["start"]["when"] };
type Partial = {
  enabled: boolean;
  minProgress: number;
  progress?: { signal: string; from: number; to: number };
};

export function readRepetition(
  r: Reader,
  node: YNode | undefined,
  phases: readonly PhaseDef[],
  /** Every declared signal, including ones that failed (already reported). */
  signalNames: ReadonlySet<string>,
  position: (offset: number) => Position,
): RepetitionDef | undefined {
  const m = r.map(node, "repetition");
  if (!m) return undefined;
  const k = r.keys(m, ["cycle", "target", "within", "start", "partial"], "repetition");
  const cycle = readCycle(r, k, m, phases);
  if (!cycle) return undefined;
  const target = readTarget(r, k.get("target")?.value, cycle, phases);
  if (target === undefined) return undefined;
  // An open cycle ([seated, standing]) times only the move between its phases, which can take a
  // tenth of a second: a default minimum would make every such repetition "too fast".
  const open = cycle[0] !== cycle[cycle.length - 1];
  const within = readWithin(r, k.get("within")?.value, open ? 0 : DEFAULT_MIN_DURATION);
  if (!within) return undefined;
  const start = readStart(r, k.get("start")?.value, cycle, phases, signalNames, position);
  if (!start) return undefined;
  const partial = readPartial(r, k.get("partial")?.value);
  if (!partial) return undefined;
  const progress = partialProgress(phases, cycle, target);
  if (progress) partial.progress = progress;
  return { cycle, target, minDuration: within.min, maxDuration: within.max, start, partial };
}

function readCycle(
  r: Reader,
  k: Map<string, YEntry>,
  m: YMap,
  phases: readonly PhaseDef[],
): number[] | undefined {
  const cycleNames = r.names(r.required(k, "cycle", m, "repetition"), "repetition.cycle");
  if (!cycleNames) return undefined;
  const cycleNode = k.get("cycle")!.value;
  const cycle: number[] = [];
  let ok = true;
  for (const { name, node: n } of cycleNames) {
    const i = phaseIndex(r, phases, name, n, "repetition.cycle");
    if (i === undefined) ok = false;
    else cycle.push(i);
  }
  if (!ok) return undefined;
  if (cycle.length < 2) {
    r.issues.error(
      "CYCLE_TOO_SHORT",
      "a cycle needs at least two phases, e.g. [up, down, up] or [seated, standing]",
      at(cycleNode),
    );
    return undefined;
  }
  for (let i = 1; i < cycle.length; i++) {
    if (cycle[i] === cycle[i - 1]) {
      r.issues.error(
        "CYCLE_REPEATED_PHASE",
        `the cycle names '${phases[cycle[i]].name}' twice in a row`,
        at(cycleNode),
      );
      return undefined;
    }
  }
  return cycle;
}

/** The phase that must be reached (default: the cycle's second). */
function readTarget(
  r: Reader,
  node: YNode | undefined,
  cycle: readonly number[],
  phases: readonly PhaseDef[],
): number | undefined {
  if (!node) return cycle[1];
  const name = r.string(node, "repetition.target");
  if (name === undefined) return undefined;
  const i = phaseIndex(r, phases, name, node, "repetition.target");
  if (i === undefined) return undefined;
  if (!cycle.slice(1).includes(i) || i === cycle[0]) {
    r.issues.error(
      "VALUE_INVALID",
      `repetition.target must be a phase of the cycle other than the first`,
      at(node),
    );
    return undefined;
  }
  return i;
}

/** The shortest closed-cycle repetition by default, and the longest of any. */
const DEFAULT_MIN_DURATION = 0.3;
const DEFAULT_MAX_DURATION = 20;

/** Shortest and longest repetition, in seconds: [min, max] or {min, max}. */
function readWithin(
  r: Reader,
  w: YNode | undefined,
  defaultMin: number,
): { min: number; max: number } | undefined {
  const defaults = { min: defaultMin, max: DEFAULT_MAX_DURATION };
  if (!w) return defaults;
  let minNode: YNode | undefined;
  let maxNode: YNode | undefined;
  if (w.kind === "seq" && w.items.length === 2) [minNode, maxNode] = w.items;
  else if (w.kind === "map") {
    const wk = r.keys(w, ["min", "max"], "repetition.within");
    minNode = wk.get("min")?.value;
    maxNode = wk.get("max")?.value;
  } else {
    r.issues.error(
      "TYPE_MISMATCH",
      "repetition.within must be [min, max] or {min, max}, e.g. [0.5s, 8s]",
      at(w),
    );
    return undefined;
  }
  const lo = minNode
    ? r.duration(minNode, "the shortest repetition (within.min)", { usually: "short" })
    : 0;
  const hi = maxNode ? r.duration(maxNode, "the longest repetition (within.max)") : defaults.max;
  if (lo === undefined || hi === undefined) return undefined;
  if (lo >= hi) {
    r.issues.error(
      "WITHIN_INVALID",
      `repetition.within: the minimum (${lo} s) must be below the maximum (${hi} s)`,
      at(w),
    );
    return undefined;
  }
  return { min: lo, max: hi };
}

/** When a repetition may start: after resting in the first phase `for` seconds, while `when`. */
function readStart(
  r: Reader,
  node: YNode | undefined,
  cycle: readonly number[],
  phases: readonly PhaseDef[],
  signalNames: ReadonlySet<string>,
  position: (offset: number) => Position,
): Start | undefined {
  const start: Start = { phase: cycle[0], for: 0 };
  if (!node) return start;
  const s = r.map(node, "repetition.start");
  if (!s) return undefined;
  const sk = r.keys(s, ["phase", "for", "when"], "repetition.start");
  // Every key is read, so that each mistake is reported in one pass.
  let ok = true;
  if (sk.has("phase")) {
    const node = sk.get("phase")!.value;
    const name = r.string(node, "repetition.start.phase");
    const i =
      name === undefined ? undefined : phaseIndex(r, phases, name, node, "repetition.start.phase");
    if (i !== undefined && i !== cycle[0])
      r.issues.error(
        "VALUE_INVALID",
        `repetition.start.phase must be the first phase of the cycle ('${phases[cycle[0]].name}')`,
        at(node),
      );
    if (i !== cycle[0]) ok = false;
  }
  if (sk.has("for")) {
    const f = r.duration(sk.get("for")!.value, "repetition.start.for", {
      max: 60,
      usually: "short",
    });
    if (f === undefined) ok = false;
    else start.for = f;
  }
  if (sk.has("when")) {
    const c = readCondition(
      r,
      sk.get("when")!.value,
      "repetition.start.when",
      signalNames,
      position,
    );
    if (!c) ok = false;
    else start.when = c.expr;
  }
  return ok ? start : undefined;
}

/** `partial: false`, or `partial: { min_progress }` (default: enabled, 0.3). */
function readPartial(r: Reader, p: YNode | undefined): Partial | undefined {
  const partial: Partial = { enabled: true, minProgress: 0.3 };
  if (!p) return partial;
  if (p.kind === "scalar" && typeof p.value === "boolean") {
    partial.enabled = p.value;
    return partial;
  }
  const pm = r.map(p, "repetition.partial");
  if (!pm) return undefined;
  const pk = r.keys(pm, ["min_progress"], "repetition.partial");
  if (pk.has("min_progress")) {
    const v = r.number(pk.get("min_progress")!.value, "repetition.partial.min_progress", {
      min: 0,
      max: 1,
    });
    if (v === undefined) return undefined;
    partial.minProgress = v;
  }
  return partial;
}

/**
 * How far a repetition got: progress runs from where the start phase is left to where the
 * target phase is entered, on the signal the target's condition compares (when it compares one).
 */
function partialProgress(
  phases: readonly PhaseDef[],
  cycle: readonly number[],
  target: number,
): Partial["progress"] {
  const targetCmp = singleComparison(phases[target].enter);
  if (!targetCmp || targetCmp.key.includes(".")) return undefined;
  const startStay = conjunctionIntervals(phases[cycle[0]].stay);
  const bound = startStay?.get(targetCmp.key);
  const from = bound ? (targetCmp.op.startsWith("<") ? bound.lo : bound.hi) : undefined;
  if (from !== undefined && Number.isFinite(from) && from !== targetCmp.value)
    return { signal: targetCmp.key, from, to: targetCmp.value };
  return undefined;
}
