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
import { at, IDENTIFIER, type Reader } from "./reader.js";
import type { YNode } from "./yaml-tree.js";

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
  return { expr, src, signals: info.signals };
}

function not(e: Expr): Expr {
  return { kind: "not", operand: e, span: e.span };
}

function baseName(ref: string): string {
  return ref.includes(".") ? ref.split(".")[1] : ref;
}

export function readPhases(
  r: Reader,
  node: YNode | undefined,
  signals: readonly SignalDef[],
  position: (offset: number) => Position,
  declared: ReadonlySet<string> = new Set(signals.map((s) => s.name)),
): PhaseSource[] {
  const out: PhaseSource[] = [];
  const map = r.map(node, "phases");
  if (!map) return out;
  if (map.entries.length === 0) {
    r.issues.error("FIELD_REQUIRED", "phases needs at least one phase", at(map));
    return out;
  }
  const signalNames = declared;
  const ranges = new Map(signals.map((s) => [s.name, s.range]));
  const analysed: { name: string; enter?: Map<string, Interval>; pos: Position; path: string }[] =
    [];

  for (const entry of map.entries) {
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
      continue;
    }
    const m = r.map(entry.value, `phase '${entry.key}'`);
    if (!m) continue;
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
      ? r.duration(k.get("min_dwell")!.value, "min_dwell", 60)
      : DEFAULT_MIN_DWELL;
    if (!enter || minDwell === undefined) continue;
    if (k.has("exit") && k.has("hysteresis")) {
      r.issues.error("VALUE_INVALID", `phase '${entry.key}' takes exit or hysteresis, not both`, {
        pos: k.get("hysteresis")!.keyPos,
        path: `${path}.hysteresis`,
      });
      continue;
    }
    if (k.has("exit") && !exit) continue;
    if (k.has("hysteresis") && hysteresis === undefined) continue;
    const enterIntervals = conjunctionIntervals(enter.expr);

    // Reachability: an enter condition no value of its signals can satisfy.
    if (enterIntervals) {
      for (const [key, interval] of enterIntervals) {
        const range = ranges.get(baseName(key)) ?? [
          Number.NEGATIVE_INFINITY,
          Number.POSITIVE_INFINITY,
        ];
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
              ? `phase '${entry.key}' can never be entered: its conditions on '${key}' contradict each other`
              : `phase '${entry.key}' can never be entered: '${key}' is always within [${range[0]}, ${range[1]}]`,
            { pos: spanPosition(enter.src, enter.expr.span), path: `${path}.enter` },
          );
        } else if (
          interval.lo !== Number.NEGATIVE_INFINITY &&
          (interval.lo < range[0] || interval.lo > range[1])
        ) {
          r.issues.warn(
            "THRESHOLD_OUT_OF_RANGE",
            `${interval.lo} is outside the possible values of '${key}' [${range[0]}, ${range[1]}]`,
            {
              pos: spanPosition(enter.src, enter.expr.span),
              path: `${path}.enter`,
            },
          );
        } else if (
          interval.hi !== Number.POSITIVE_INFINITY &&
          (interval.hi < range[0] || interval.hi > range[1])
        ) {
          r.issues.warn(
            "THRESHOLD_OUT_OF_RANGE",
            `${interval.hi} is outside the possible values of '${key}' [${range[0]}, ${range[1]}]`,
            {
              pos: spanPosition(enter.src, enter.expr.span),
              path: `${path}.enter`,
            },
          );
        }
      }
    }

    let stay: Expr;
    if (exit) {
      stay = not(exit.expr);
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
    } else if (hysteresis !== undefined && hysteresis > 0) {
      stay = relax(enter.expr, hysteresis);
    } else {
      r.issues.error(
        "PHASE_NO_HYSTERESIS",
        `phase '${entry.key}' needs an exit condition or a hysteresis > 0, so that a signal hovering at the threshold does not enter and leave again and again`,
        { pos: entry.keyPos, path },
      );
      continue;
    }
    const used = new Set<string>(enter.signals);
    if (exit) for (const s of exit.signals) used.add(s);
    out.push({
      def: { name: entry.key, enter: enter.expr, stay, minDwell, signals: [...used] },
      pos: entry.keyPos,
      path,
    });
    analysed.push({ name: entry.key, enter: enterIntervals, pos: entry.keyPos, path });
  }

  // Overlap: two phases whose enter conditions can hold at the same time.
  for (let i = 0; i < analysed.length; i++) {
    for (let j = i + 1; j < analysed.length; j++) {
      const a = analysed[i];
      const b = analysed[j];
      if (!a.enter || !b.enter) continue;
      const shared = [...a.enter.keys()].filter((key) => b.enter!.has(key));
      if (shared.length === 0) continue;
      if (canBothHold(a.enter, b.enter)) {
        const key = shared[0];
        r.issues.error(
          "PHASES_OVERLAP",
          `phases '${a.name}' and '${b.name}' can both be entered at once ('${key}' ${intervalText(a.enter.get(key)!)} and ${intervalText(b.enter.get(key)!)} overlap)`,
          { pos: b.pos, path: `${b.path}.enter` },
        );
      }
    }
  }
  return out;
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
