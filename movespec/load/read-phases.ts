/** Reads `phases`: enter and exit conditions, hysteresis, dwell; proves overlaps and dead bands. */

import type { PhaseDef, SignalDef } from "../compiled-spec.js";
import type { Expr } from "../expression/ast.js";
import type { Position } from "../issues.js";
import { checkExpression, type ExprSource, parseAt, spanPosition } from "./check-expression.js";
import {
  canBothHold,
  conjunctionIntervals,
  type Interval,
  intersect,
  intervalText,
  isEmpty,
  relax,
} from "./intervals.js";
import { LOAD_LIMITS } from "./limits.js";
import { at, IDENTIFIER, type Reader } from "./reader.js";
import type { YEntry, YNode } from "./yaml-tree.js";

export const DEFAULT_MIN_DWELL = 0.1;

export interface PhaseSource {
  readonly def: PhaseDef;
  readonly pos: Position;
  readonly path: string;
}

export function readCondition(
  r: Reader,
  node: YNode | undefined,
  what: string,
  signals: ReadonlySet<string>,
  position: (offset: number) => Position,
): { expr: Expr; src: ExprSource; signals: Set<string> } | undefined {
  const scalar = r.text(node, what);
  if (!scalar) return undefined;
  const text = String(scalar.value);
  const src: ExprSource = { node: scalar, text, path: scalar.path, position };
  const expr = parseAt(src, r.issues);
  if (!expr) return undefined;
  const info = checkExpression(
    expr,
    src,
    { issues: r.issues, signalNames: signals, allowGeometry: false },
    "condition",
  );
  if (!info) return undefined;
  r.conditions.push({ expr, src });
  return { expr, src, signals: info.signals };
}

function not(e: Expr): Expr {
  return { kind: "not", operand: e, span: e.span };
}

function baseName(ref: string): string {
  return ref.includes(".") ? ref.split(".")[1] : ref;
}

type Condition = NonNullable<ReturnType<typeof readCondition>>;
type Ranges = ReadonlyMap<string, readonly [number, number]>;

/** What an adaptive signal's values mean, for messages about its thresholds. */
const ADAPTIVE_HINT =
  " (an adaptive signal runs from 0 at the rest end to 1 at the far end of its source's recent range)";

/** A phase read without errors, with its enter condition as intervals for the overlap check. */
interface ReadPhase {
  readonly source: PhaseSource;
  readonly enter: Map<string, Interval> | undefined;
}

export function readPhases(
  r: Reader,
  node: YNode | undefined,
  signals: readonly SignalDef[],
  position: (offset: number) => Position,
  declared: ReadonlySet<string> = new Set(signals.map((s) => s.name)),
): PhaseSource[] {
  const map = r.map(node, "phases");
  if (!map) return [];
  if (map.entries.length === 0) {
    r.issues.error("FIELD_REQUIRED", "phases needs at least one phase", at(map));
    return [];
  }
  if (map.entries.length > LOAD_LIMITS.maxPhases) {
    r.issues.error(
      "TOO_MANY_DEFINITIONS",
      `more than ${LOAD_LIMITS.maxPhases} phases (${map.entries.length})`,
      at(map),
    );
    return [];
  }
  const ranges: Ranges = new Map(signals.map((s) => [s.name, s.range]));
  const adaptive = new Set(signals.filter((s) => s.adaptive).map((s) => s.name));
  const read: ReadPhase[] = [];
  for (const entry of map.entries) {
    const phase = readPhase(r, entry, declared, ranges, adaptive, position);
    if (phase) read.push(phase);
  }
  checkOverlaps(r, read);
  return read.map((p) => p.source);
}

function readPhase(
  r: Reader,
  entry: YEntry,
  signalNames: ReadonlySet<string>,
  ranges: Ranges,
  adaptive: ReadonlySet<string>,
  position: (offset: number) => Position,
): ReadPhase | undefined {
  const path = `phases.${entry.key}`;
  if (!IDENTIFIER.test(entry.key)) {
    r.issues.error(
      "NAME_INVALID",
      `phase name '${entry.key}' must be lower case letters, digits and _ (starting with a letter)`,
      {
        pos: entry.keyPos,
        path,
      },
    );
    return undefined;
  }
  const m = r.map(entry.value, `phase '${entry.key}'`);
  if (!m) return undefined;
  const k = r.keys(m, ["enter", "exit", "hysteresis", "min_dwell"], `phase '${entry.key}'`);
  const enterNode = r.required(k, "enter", m, `phase '${entry.key}'`);
  const enter = readCondition(r, enterNode, `${path}.enter`, signalNames, position);
  const exit = k.has("exit")
    ? readCondition(r, k.get("exit")!.value, `${path}.exit`, signalNames, position)
    : undefined;
  const hysteresis = k.has("hysteresis")
    ? r.number(k.get("hysteresis")!.value, "hysteresis", { min: 0 })
    : undefined;
  const minDwell = k.has("min_dwell")
    ? r.duration(k.get("min_dwell")!.value, `${path}.min_dwell`, { max: 60, usually: "short" })
    : DEFAULT_MIN_DWELL;
  if (!enter || minDwell === undefined) return undefined;
  if (k.has("exit") && k.has("hysteresis")) {
    r.issues.error("VALUE_INVALID", `phase '${entry.key}' takes exit or hysteresis, not both`, {
      pos: k.get("hysteresis")!.keyPos,
      path: `${path}.hysteresis`,
    });
    return undefined;
  }
  if (k.has("exit") && !exit) return undefined;
  if (k.has("hysteresis") && hysteresis === undefined) return undefined;
  const enterIntervals = conjunctionIntervals(enter.expr);
  if (enterIntervals) checkReachable(r, entry.key, path, enter, enterIntervals, ranges, adaptive);
  const stay = stayCondition(r, entry, path, enter, enterIntervals, exit, hysteresis);
  if (!stay) return undefined;
  const used = new Set<string>(enter.signals);
  if (exit) for (const s of exit.signals) used.add(s);
  return {
    source: {
      def: { name: entry.key, enter: enter.expr, stay, minDwell, signals: [...used] },
      pos: entry.keyPos,
      path,
    },
    enter: enterIntervals,
  };
}

/**
 * An enter condition no value of its signals can satisfy is an error. (A threshold outside the
 * signal's range in a condition that can hold is a warning: see check-thresholds.ts.)
 */
function checkReachable(
  r: Reader,
  name: string,
  path: string,
  enter: Condition,
  enterIntervals: Map<string, Interval>,
  ranges: Ranges,
  adaptive: ReadonlySet<string>,
): void {
  for (const [key, interval] of enterIntervals) {
    const hint = adaptive.has(baseName(key)) ? ADAPTIVE_HINT : "";
    const range = ranges.get(baseName(key)) ?? [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
    const within = intersect(interval, {
      lo: range[0],
      loOpen: false,
      hi: range[1],
      hiOpen: false,
    });
    if (isEmpty(interval) || isEmpty(within)) {
      r.issues.error(
        "PHASE_UNREACHABLE",
        isEmpty(interval)
          ? `phase '${name}' can never be entered: its conditions on '${key}' contradict each other`
          : `phase '${name}' can never be entered: '${key}' is always within [${range[0]}, ${range[1]}]${hint}`,
        { pos: spanPosition(enter.src, enter.expr.span), path: `${path}.enter` },
      );
    }
  }
}

/**
 * The condition that keeps the phase: not `exit` (which must leave a gap after `enter`), or
 * `enter` loosened by the hysteresis. Undefined (with an error) when there is neither.
 */
function stayCondition(
  r: Reader,
  entry: YEntry,
  path: string,
  enter: Condition,
  enterIntervals: Map<string, Interval> | undefined,
  exit: Condition | undefined,
  hysteresis: number | undefined,
): Expr | undefined {
  if (exit) {
    const exitIntervals = conjunctionIntervals(exit.expr);
    if (enterIntervals && exitIntervals && canBothHold(enterIntervals, exitIntervals)) {
      r.issues.error(
        "PHASE_EXIT_OVERLAPS_ENTER",
        `phase '${entry.key}': the exit condition can hold while the enter condition holds, so the phase would flicker`,
        { pos: spanPosition(exit.src, exit.expr.span), path: `${path}.exit` },
      );
    } else if (enterIntervals && exitIntervals && touches(enterIntervals, exitIntervals)) {
      r.issues.error(
        "PHASE_NO_HYSTERESIS",
        `phase '${entry.key}': exit starts exactly where enter ends, so a signal hovering at the threshold would enter and leave again and again; leave a gap (hysteresis)`,
        { pos: spanPosition(exit.src, exit.expr.span), path: `${path}.exit` },
      );
    }
    return not(exit.expr);
  }
  if (hysteresis !== undefined && hysteresis > 0) return relax(enter.expr, hysteresis);
  r.issues.error(
    "PHASE_NO_HYSTERESIS",
    `phase '${entry.key}' needs an exit condition or a hysteresis > 0, so that a signal hovering at the threshold does not enter and leave again and again`,
    { pos: entry.keyPos, path },
  );
  return undefined;
}

/** Two phases whose enter conditions can hold at the same time. */
function checkOverlaps(r: Reader, phases: readonly ReadPhase[]): void {
  for (let i = 0; i < phases.length; i++) {
    for (let j = i + 1; j < phases.length; j++) {
      const a = phases[i];
      const b = phases[j];
      if (!a.enter || !b.enter) continue;
      const shared = [...a.enter.keys()].filter((key) => b.enter!.has(key));
      if (shared.length === 0) continue;
      if (canBothHold(a.enter, b.enter)) {
        const key = shared[0];
        r.issues.error(
          "PHASES_OVERLAP",
          `phases '${a.source.def.name}' and '${b.source.def.name}' can both be entered at once ('${key}' ${intervalText(a.enter.get(key)!)} and ${intervalText(b.enter.get(key)!)} overlap)`,
          { pos: b.source.pos, path: `${b.source.path}.enter` },
        );
      }
    }
  }
}

/** True when, for some signal, the enter and exit intervals share a boundary with no gap. */
function touches(enter: Map<string, Interval>, exit: Map<string, Interval>): boolean {
  if (enter.size !== 1 || exit.size !== 1) return false;
  const [key, e] = [...enter][0];
  const x = exit.get(key);
  if (!x) return false;
  const gapLow = e.lo !== Number.NEGATIVE_INFINITY && x.hi === e.lo;
  const gapHigh = e.hi !== Number.POSITIVE_INFINITY && x.lo === e.hi;
  return gapLow || gapHigh;
}
