/**
 * Reads `repetition`: the cycle of phases, the target phase, the allowed duration (`within`),
 * the start condition and partial repetitions. Every key is read, so that each mistake is
 * reported in one pass; any error leaves the repetition undefined.
 */
import type { PhaseDef, RepetitionDef } from "../compiled-spec.js";
import type { Position } from "../issues.js";
import { conjunctionIntervals, singleComparison } from "./intervals.js";
import { checkPhaseName, type PhaseNames, phaseIndex } from "./phase-ref.js";
import { readCondition } from "./read-phases.js";
import { at, type Reader } from "./reader.js";
import type { YEntry, YMap, YNode } from "./yaml-tree.js";

/** The start condition; its phase is always the cycle's first. */
type Start = { for: number; when?: RepetitionDef["start"]["when"] };
type Partial = {
  enabled: boolean;
  minProgress: number;
  progress?: { signal: string; from: number; to: number };
};

export function readRepetition(
  r: Reader,
  node: YNode | undefined,
  phases: PhaseNames,
  /** Every declared signal, including ones that failed (already reported). */
  signalNames: ReadonlySet<string>,
  position: (offset: number) => Position,
): RepetitionDef | undefined {
  const m = r.map(node, "repetition");
  if (!m) return undefined;
  const k = r.keys(m, ["cycle", "target", "within", "start", "partial"], "repetition");
  // The cycle and its target and start are checked by name: a phase named there may have
  // failed, and the mistakes in this section are worth reporting all the same.
  const cycleNames = readCycle(r, k, m, phases);
  const target = readTarget(r, k.get("target")?.value, cycleNames, phases);
  // An open cycle ([seated, standing]) times only the move between its phases, which can take a
  // tenth of a second: a default minimum would make every such repetition "too fast".
  const open = cycleNames !== undefined && cycleNames[0] !== cycleNames[cycleNames.length - 1];
  const within = readWithin(r, k.get("within")?.value, open ? 0 : DEFAULT_MIN_DURATION);
  const start = readStart(r, k.get("start")?.value, cycleNames, phases, signalNames, position);
  const partial = readPartial(r, k.get("partial")?.value);
  if (!cycleNames || target === undefined || !within || !start || !partial) return undefined;
  const cycle = indices(phases, cycleNames);
  const targetIndex = phaseIndex(phases, target);
  if (!cycle || targetIndex === undefined) return undefined;
  const progress = partialProgress(phases.defs, cycle, targetIndex);
  if (progress) partial.progress = progress;
  return {
    cycle,
    target: targetIndex,
    minDuration: within.min,
    maxDuration: within.max,
    start: { ...start, phase: cycle[0] },
    partial,
  };
}

/** The indices of the phases named, when every one of them was read. */
function indices(phases: PhaseNames, names: readonly string[]): number[] | undefined {
  const out: number[] = [];
  for (const name of names) {
    const i = phaseIndex(phases, name);
    if (i === undefined) return undefined;
    out.push(i);
  }
  return out;
}

function readCycle(
  r: Reader,
  k: Map<string, YEntry>,
  m: YMap,
  phases: PhaseNames,
): string[] | undefined {
  const cycleNames = r.names(r.required(k, "cycle", m, "repetition"), "repetition.cycle");
  if (!cycleNames) return undefined;
  const cycleNode = k.get("cycle")!.value;
  let ok = true;
  for (const { name, node: n } of cycleNames)
    if (!checkPhaseName(r, phases, name, n, "repetition.cycle")) ok = false;
  if (!ok) return undefined;
  const cycle = cycleNames.map((c) => c.name);
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
        `the cycle names '${cycle[i]}' twice in a row`,
        at(cycleNode),
      );
      return undefined;
    }
  }
  return cycle;
}

/**
 * The phase that must be reached (default: the cycle's second). Checked against the cycle only
 * when the cycle could be read: a broken cycle has its own error.
 */
function readTarget(
  r: Reader,
  node: YNode | undefined,
  cycle: readonly string[] | undefined,
  phases: PhaseNames,
): string | undefined {
  if (!node) return cycle?.[1];
  const name = r.string(node, "repetition.target");
  if (name === undefined) return undefined;
  if (!checkPhaseName(r, phases, name, node, "repetition.target") || !cycle) return undefined;
  if (!cycle.slice(1).includes(name) || name === cycle[0]) {
    r.issues.error(
      "VALUE_INVALID",
      `repetition.target must be a phase of the cycle other than the first`,
      at(node),
    );
    return undefined;
  }
  return name;
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

/**
 * When a repetition may start: after resting in the first phase `for` seconds, while `when`.
 * `phase` is checked against the cycle only when the cycle could be read.
 */
function readStart(
  r: Reader,
  node: YNode | undefined,
  cycle: readonly string[] | undefined,
  phases: PhaseNames,
  signalNames: ReadonlySet<string>,
  position: (offset: number) => Position,
): Start | undefined {
  const start: Start = { for: 0 };
  if (!node) return start;
  const s = r.map(node, "repetition.start");
  if (!s) return undefined;
  const sk = r.keys(s, ["phase", "for", "when"], "repetition.start");
  // Every key is read, so that each mistake is reported in one pass.
  let ok = true;
  if (sk.has("phase")) {
    const node = sk.get("phase")!.value;
    const name = r.string(node, "repetition.start.phase");
    const known =
      name !== undefined && checkPhaseName(r, phases, name, node, "repetition.start.phase");
    if (known && cycle && name !== cycle[0])
      r.issues.error(
        "VALUE_INVALID",
        `repetition.start.phase must be the first phase of the cycle ('${cycle[0]}')`,
        at(node),
      );
    if (!known || !cycle || name !== cycle[0]) ok = false;
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
