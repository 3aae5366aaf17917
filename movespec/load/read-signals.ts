/** Reads `smoothing` and `signals`: expressions, smoothing, dependency order, cycles, ranges. */

import type { SignalDef, Smoothing } from "../compiled-spec.js";
import type { Expr } from "../expression/ast.js";
import { FUNCTIONS } from "../expression/functions.js";
import type { IssueList, Position } from "../issues.js";
import type { SideKey } from "../sides.js";
import { parseLandmarkName } from "../topology.js";
import {
  checkExpression,
  type ExprInfo,
  type ExprSource,
  parseAt,
  type Range,
  rangeOf,
  unitOf,
} from "./check-expression.js";
import { LOAD_LIMITS } from "./limits.js";
import {
  type AdaptiveRead,
  checkAdaptiveSource,
  isAdaptive,
  readAdaptive,
} from "./read-adaptive.js";
import { at, IDENTIFIER, type Reader } from "./reader.js";
import type { YEntry, YNode } from "./yaml-tree.js";

/** Lag of a smoothing filter at rest, in seconds (One Euro at min_cutoff, EMA's time constant). */
export function smoothingLag(s: Smoothing): number {
  if (s.kind === "one_euro") return 1 / (2 * Math.PI * s.minCutoff);
  if (s.kind === "ema") return s.timeConstant;
  return 0;
}

/** The landmark a side-relative name means on a fixed side (`knee` on the left is `left_knee`). */
function fixSide(name: string, side: string): string {
  const ref = parseLandmarkName(name);
  if (ref?.kind === "sided") return `${side}_${ref.base}`;
  if (ref?.kind === "opposite") return `${side === "left" ? "right" : "left"}_${ref.base}`;
  return name;
}

export const DEFAULT_SMOOTHING: Smoothing = {
  kind: "one_euro",
  minCutoff: 1.5,
  beta: 0.05,
  dCutoff: 1.0,
};
const LAG_WARNING_SECONDS = 0.2;

export function readSmoothing(
  r: Reader,
  node: YNode | undefined,
  what: string,
): Smoothing | undefined {
  if (!node) return undefined;
  if (node.kind === "scalar" && (node.value === "none" || node.value === false))
    return { kind: "none" };
  const map = r.map(node, what);
  if (!map) return undefined;
  const keys = r.keys(map, ["one_euro", "ema"], what);
  if (keys.size !== 1) {
    if (keys.size === 0 && map.entries.length === 0)
      r.issues.error(
        "FIELD_REQUIRED",
        `${what} needs one of one_euro or ema (or the word none)`,
        at(map),
      );
    else if (keys.size > 1)
      r.issues.error(
        "VALUE_INVALID",
        `${what} takes one filter: one_euro or ema, not both`,
        at(map),
      );
    return undefined;
  }
  const oneEuro = keys.get("one_euro");
  if (oneEuro) {
    const m = r.map(oneEuro.value, `${what}.one_euro`);
    if (!m) return undefined;
    const k = r.keys(m, ["min_cutoff", "beta", "d_cutoff"], `${what}.one_euro`);
    const minCutoff = k.has("min_cutoff")
      ? r.number(k.get("min_cutoff")!.value, "min_cutoff (Hz)", { min: 0.001, max: 1000 })
      : DEFAULT_SMOOTHING.kind === "one_euro"
        ? DEFAULT_SMOOTHING.minCutoff
        : 1;
    const beta = k.has("beta")
      ? r.number(k.get("beta")!.value, "beta", { min: 0, max: 1000 })
      : 0.05;
    const dCutoff = k.has("d_cutoff")
      ? r.number(k.get("d_cutoff")!.value, "d_cutoff (Hz)", { min: 0.001, max: 1000 })
      : 1;
    if (minCutoff === undefined || beta === undefined || dCutoff === undefined) return undefined;
    return { kind: "one_euro", minCutoff, beta, dCutoff };
  }
  const ema = keys.get("ema")!;
  const m = r.map(ema.value, `${what}.ema`);
  if (!m) return undefined;
  const k = r.keys(m, ["time_constant", "alpha"], `${what}.ema`);
  if (k.has("time_constant") === k.has("alpha")) {
    r.issues.error(
      "VALUE_INVALID",
      `${what}.ema takes either time_constant (seconds) or alpha (per frame at 30 fps)`,
      at(m),
    );
    return undefined;
  }
  if (k.has("time_constant")) {
    const tc = r.duration(k.get("time_constant")!.value, "time_constant", {
      max: 60,
      usually: "short",
    });
    return tc === undefined ? undefined : { kind: "ema", timeConstant: tc };
  }
  const alpha = r.number(k.get("alpha")!.value, "alpha", { min: 0.001, max: 1 });
  if (alpha === undefined) return undefined;
  // alpha is the weight of a new frame at the reference rate of 30 fps; convert to seconds so
  // the filter follows the frames' own timestamps whatever the real rate.
  return { kind: "ema", timeConstant: alpha >= 1 ? 0 : -1 / (30 * Math.log(1 - alpha)) };
}

interface PendingSignal {
  name: string;
  node: YNode;
  nameNode: Position;
  path: string;
  expr: Expr;
  text: string;
  info: ExprInfo;
  smoothing?: Smoothing;
  src: ExprSource;
  adaptive?: AdaptiveRead;
}

export interface SignalsResult {
  signals: SignalDef[];
  /** Every name declared under signals, including ones with errors (so references to them do
   * not raise a second, misleading error). */
  declared: Set<string>;
  /** Landmark names used by each signal (transitively), for the tracking gate. */
  landmarks: Map<string, Set<string>>;
  usesScale: boolean;
}

export function readSignals(
  r: Reader,
  node: YNode | undefined,
  globalSmoothing: Smoothing,
  position: (offset: number) => Position,
  sides: readonly SideKey[],
): SignalsResult {
  const result: SignalsResult = {
    signals: [],
    declared: new Set(),
    landmarks: new Map(),
    usesScale: false,
  };
  const map = r.map(node, "signals");
  if (!map) return result;
  if (map.entries.length === 0) {
    r.issues.error("FIELD_REQUIRED", "signals needs at least one signal", at(map));
    return result;
  }
  const names = new Set(map.entries.map((e) => e.key));
  result.declared = names;
  if (map.entries.length > LOAD_LIMITS.maxSignals) {
    r.issues.error(
      "TOO_MANY_DEFINITIONS",
      `more than ${LOAD_LIMITS.maxSignals} signals (${map.entries.length})`,
      at(map),
    );
    return result;
  }
  const pending = new Map<string, PendingSignal>();
  for (const entry of map.entries) {
    const p = readSignal(r, entry, names, position, sides);
    if (p) pending.set(entry.key, p);
  }
  const adaptiveCount = [...pending.values()].filter((p) => p.adaptive).length;
  if (adaptiveCount > LOAD_LIMITS.maxAdaptiveSignals) {
    r.issues.error(
      "TOO_MANY_DEFINITIONS",
      `more than ${LOAD_LIMITS.maxAdaptiveSignals} adaptive signals (${adaptiveCount}): each keeps a window of samples in every session`,
      at(map),
    );
    return result;
  }
  const defs = new Map<string, SignalDef>();
  for (const p of dependencyOrder(pending, r.issues)) {
    // A signal that uses one that could not be defined fails too (its cause is reported).
    if ([...p.info.signals].some((ref) => !defs.has(ref.includes(".") ? ref.split(".")[1] : ref)))
      continue;
    const def = p.adaptive
      ? defineAdaptive(p, p.adaptive, defs, r)
      : defineSignal(p, defs, globalSmoothing, r, result);
    if (!def) continue;
    if (p.adaptive) {
      const ref = p.adaptive.expr;
      const from = result.landmarks.get(ref.name) ?? new Set<string>();
      result.landmarks.set(
        p.name,
        new Set([...from].map((l) => (ref.side ? fixSide(l, ref.side) : l))),
      );
    }
    defs.set(def.name, def);
    result.signals.push(def);
  }
  return result;
}

/** One entry of `signals`: its name, expression (short or long form) and own smoothing. */
function readSignal(
  r: Reader,
  entry: YEntry,
  names: ReadonlySet<string>,
  position: (offset: number) => Position,
  sides: readonly SideKey[],
): PendingSignal | undefined {
  const issues = r.issues;
  const path = `signals.${entry.key}`;
  if (!IDENTIFIER.test(entry.key)) {
    issues.error(
      "NAME_INVALID",
      `signal name '${entry.key}' must be lower case letters, digits and _ (starting with a letter)`,
      {
        pos: entry.keyPos,
        path,
      },
    );
    return undefined;
  }
  if (
    entry.key === "left" ||
    entry.key === "right" ||
    entry.key === "and" ||
    entry.key === "or" ||
    entry.key === "not"
  ) {
    issues.error("NAME_INVALID", `'${entry.key}' is a reserved word and cannot name a signal`, {
      pos: entry.keyPos,
      path,
    });
    return undefined;
  }
  if (isAdaptive(entry.value)) {
    const read = readAdaptive(r, entry, names, position);
    if (!read) return undefined;
    return {
      name: entry.key,
      node: entry.value,
      nameNode: entry.keyPos,
      path,
      expr: read.expr,
      text: `adaptive ${read.src.text}`,
      info: read.info,
      src: read.src,
      adaptive: read,
    };
  }
  let exprNode: YNode | undefined = entry.value;
  let smoothing: Smoothing | undefined;
  if (entry.value.kind === "map") {
    const k = r.keys(entry.value, ["expr", "smoothing"], `signal '${entry.key}'`);
    exprNode = r.required(k, "expr", entry.value, `signal '${entry.key}'`);
    if (k.has("smoothing"))
      smoothing = readSmoothing(r, k.get("smoothing")!.value, `${path}.smoothing`);
  }
  const scalar = r.text(exprNode, `signal '${entry.key}'`);
  if (!scalar) return undefined;
  const text = String(scalar.value);
  const src: ExprSource = { node: scalar, text, path: scalar.path, position };
  const expr = parseAt(src, issues);
  if (!expr) return undefined;
  const info = checkExpression(
    expr,
    src,
    { issues, signalNames: names, allowGeometry: true, sides },
    "value",
  );
  if (!info) return undefined;
  return {
    name: entry.key,
    node: entry.value,
    nameNode: entry.keyPos,
    path,
    expr,
    text,
    info,
    smoothing,
    src,
  };
}

/**
 * The signals in dependency order (depth-first over a small graph), reporting cycles. A signal
 * that uses one that failed (or is missing) fails too, silently: its cause is already reported.
 */
function dependencyOrder(pending: Map<string, PendingSignal>, issues: IssueList): PendingSignal[] {
  const state = new Map<string, "visiting" | "done" | "failed">();
  const order: PendingSignal[] = [];
  const reportedCycles = new Set<string>();
  const visit = (name: string, trail: string[]): boolean => {
    const s = state.get(name);
    if (s === "done") return true;
    // A signal that failed (or uses one that did) fails whatever reads it, however often read.
    if (s === "failed") return false;
    const p = pending.get(name);
    if (!p) return false;
    if (s === "visiting") {
      const cycle = [...trail.slice(trail.indexOf(name)), name];
      const key = [...cycle].sort().join(",");
      if (!reportedCycles.has(key)) {
        reportedCycles.add(key);
        issues.error(
          "SIGNAL_CYCLE",
          `signals refer to each other in a circle: ${cycle.join(" -> ")}`,
          { pos: p.nameNode, path: p.path },
        );
      }
      return false;
    }
    state.set(name, "visiting");
    let ok = true;
    for (const ref of p.info.signals) {
      const dep = ref.includes(".") ? ref.split(".")[1] : ref;
      if (!visit(dep, [...trail, name])) ok = false;
    }
    state.set(name, ok ? "done" : "failed");
    if (ok) order.push(p);
    else pending.delete(name);
    return ok;
  };
  for (const name of [...pending.keys()]) visit(name, []);
  return order;
}

/** Defines an adaptive signal: side-relative when its source is, unsmoothed, valued 0..1. */
function defineAdaptive(
  p: PendingSignal,
  read: AdaptiveRead,
  defs: ReadonlyMap<string, SignalDef>,
  r: Reader,
): SignalDef | undefined {
  const source = defs.get(read.expr.name)!;
  if (!checkAdaptiveSource(r, p.name, read, source)) return undefined;
  return {
    name: p.name,
    expr: read.expr,
    text: p.text,
    smoothing: { kind: "none" },
    sided: !read.expr.side && source.sided,
    range: [0, 1],
    unit: "fraction",
    adaptive: read.def,
  };
}

/**
 * Defines a signal whose dependencies (in `defs`) are defined: sidedness, smoothing, range; its
 * landmarks (transitively) and use of the body scale go into `result`.
 */
function defineSignal(
  p: PendingSignal,
  defs: ReadonlyMap<string, SignalDef>,
  globalSmoothing: Smoothing,
  r: Reader,
  result: SignalsResult,
): SignalDef {
  // A signal is sided when it uses `knee` (not `left_knee`) or an unqualified sided signal.
  let sided = p.info.sidedLandmarks;
  const lms = new Set(p.info.landmarks);
  // A signal read only through mean_visible() (or min_visible, max_visible) needs its landmarks
  // on either side, not both.
  const eitherSide = onlyInVisibleMeans(p.expr);
  for (const ref of p.info.signals) {
    const [side, dep] = ref.includes(".") ? ref.split(".") : [undefined, ref];
    const d = defs.get(dep)!;
    if (!side && d.sided) sided = true;
    const either = eitherSide.has(ref);
    for (const l of result.landmarks.get(dep) ?? [])
      lms.add(side && !either ? fixSide(l, side) : l);
  }
  result.landmarks.set(p.name, lms);
  if (p.info.usesScale) result.usesScale = true;
  const geometric = p.info.landmarks.size > 0;
  const smoothing = p.smoothing ?? (geometric ? globalSmoothing : { kind: "none" as const });
  const lag = smoothingLag(smoothing);
  if (lag > LAG_WARNING_SECONDS) {
    r.issues.warn(
      "SMOOTHING_LAG",
      `the smoothing of '${p.name}' lags about ${Math.round(lag * 1000)} ms at 30 fps (more than ${LAG_WARNING_SECONDS * 1000} ms): raise min_cutoff or shorten the time constant`,
      { pos: p.nameNode, path: p.path },
    );
  }
  const range = rangeOf(
    p.expr,
    (name) => defs.get(name)?.range ?? [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY],
  ) as Range;
  const unit = unitOf(p.expr, (name) => defs.get(name)?.unit);
  const def: SignalDef = { name: p.name, expr: p.expr, text: p.text, smoothing, sided, range };
  return unit === undefined || unit === "number" ? def : { ...def, unit };
}

/** Signal references (as written) that an expression reads only as arguments of mean_visible() and its kin. */
function onlyInVisibleMeans(e: Expr): Set<string> {
  const inside = new Set<string>();
  const outside = new Set<string>();
  const key = (r: Expr & { kind: "ref" }) => (r.side ? `${r.side}.${r.name}` : r.name);
  const walk = (n: Expr): void => {
    if (n.kind === "call" && FUNCTIONS[n.fn]?.visibleSignals) {
      for (const a of n.args) if (a.kind === "ref") inside.add(key(a));
      return;
    }
    if (n.kind === "ref") outside.add(key(n));
    else if (n.kind === "call") n.args.forEach(walk);
    else if (n.kind === "neg" || n.kind === "not") walk(n.operand);
    else if ("left" in n) {
      walk(n.left);
      walk(n.right);
    }
  };
  walk(e);
  for (const k of outside) inside.delete(k);
  return inside;
}
