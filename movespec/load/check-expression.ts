/**
 * Checks parsed expressions against the MoveSpec's names: functions and their arguments,
 * landmarks, signals; works out which signals an expression uses, whether it depends on the side
 * evaluated, and the range of values it can take.
 */
import type { SignalUnit } from "../compiled-spec.js";
import { type Expr, isBooleanExpr, type Span } from "../expression/ast.js";
import { FUNCTIONS } from "../expression/functions.js";
import { ExpressionSyntaxError, parseExpression } from "../expression/parser.js";
import type { ErrorCode } from "../issue-codes.js";
import type { IssueList, Position } from "../issues.js";
import { landmarkSide, type SideKey } from "../sides.js";
import { concreteNames, type LandmarkRef, parseLandmarkName, pointName } from "../topology.js";
import { landmarkSuggestion } from "./landmark-suggestion.js";
import { suggestion } from "./reader.js";
import type { YScalar } from "./yaml-tree.js";

export type Range = readonly [number, number];
const ANY: Range = [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];

/** Where an expression came from, to point issues at the exact character. */
export interface ExprSource {
  readonly node: YScalar;
  readonly text: string;
  readonly path: string;
  readonly position: (offset: number) => Position;
}

export function spanPosition(src: ExprSource, span: Span): Position {
  const offset = src.node.sourceOffset(span.start);
  return offset === undefined ? src.node.pos : src.position(offset);
}

export function parseAt(src: ExprSource, issues: IssueList): Expr | undefined {
  if (src.text.length > 2000) {
    issues.error("EXPRESSION_SYNTAX", "an expression longer than 2000 characters", {
      pos: src.node.pos,
      path: src.path,
    });
    return undefined;
  }
  try {
    return parseExpression(src.text);
  } catch (err) {
    if (!(err instanceof ExpressionSyntaxError)) throw err;
    issues.error("EXPRESSION_SYNTAX", `in '${src.text}': ${err.message}`, {
      pos: spanPosition(src, { start: err.offset, end: err.offset }),
      path: src.path,
    });
    return undefined;
  }
}

export interface ExprInfo {
  /** Signal references as written: `knee` or `left.knee`. */
  readonly signals: Set<string>;
  /** Landmark names as written. */
  readonly landmarks: Set<string>;
  readonly usesScale: boolean;
  /** Uses a side-relative landmark directly. */
  readonly sidedLandmarks: boolean;
  readonly boolean: boolean;
}

export interface CheckContext {
  readonly issues: IssueList;
  readonly signalNames: ReadonlySet<string>;
  /** True in signal definitions; false in conditions (no geometry, no state there). */
  readonly allowGeometry: boolean;
  /** The sides signals are evaluated on (the `sides` plan), which side-relative names follow. */
  readonly sides?: readonly SideKey[];
}

/**
 * What a landmark reference reads on a side, as the engine's point table keys it; a reference
 * the side cannot resolve (`knee` with sides: none, reported elsewhere) stands for itself.
 */
function pointKey(ref: LandmarkRef, side: SideKey): string {
  const concrete = concreteNames(ref, landmarkSide(side));
  return concrete.length > 0
    ? pointName(concrete)
    : `${ref.kind}:${"base" in ref ? ref.base : ref.name}`;
}

/** Checks an expression; reports issues and returns what it uses (undefined on error). */
export function checkExpression(
  e: Expr,
  src: ExprSource,
  ctx: CheckContext,
  want: "value" | "condition",
): ExprInfo | undefined {
  const info = {
    signals: new Set<string>(),
    landmarks: new Set<string>(),
    usesScale: false,
    sidedLandmarks: false,
    boolean: false,
  };
  const before = ctx.issues.errors.length;
  const fail = (code: ErrorCode, message: string, span: Span) =>
    ctx.issues.error(code, message, { pos: spanPosition(src, span), path: src.path });

  const value = (n: Expr): void => {
    if (isBooleanExpr(n)) {
      fail(
        "EXPRESSION_TYPE",
        `'${src.text.slice(n.span.start, n.span.end)}' is a condition where a number is expected`,
        n.span,
      );
      return;
    }
    visit(n);
  };
  const condition = (n: Expr): void => {
    if (!isBooleanExpr(n)) {
      fail(
        "EXPRESSION_TYPE",
        `'${src.text.slice(n.span.start, n.span.end)}' is a number where a condition (such as knee < 90) is expected`,
        n.span,
      );
      return;
    }
    visit(n);
  };
  const visit = (n: Expr): void => {
    switch (n.kind) {
      case "num":
        return;
      case "ref": {
        if (!ctx.signalNames.has(n.name)) {
          const asLandmark = parseLandmarkName(n.name)
            ? ` ('${n.name}' is a landmark: use it inside a function such as angle())`
            : "";
          fail(
            "UNKNOWN_SIGNAL",
            `unknown signal '${n.name}'${asLandmark || suggestion(n.name, ctx.signalNames)}`,
            n.span,
          );
          return;
        }
        info.signals.add(n.side ? `${n.side}.${n.name}` : n.name);
        return;
      }
      case "neg":
        value(n.operand);
        return;
      case "arith":
      case "compare":
        value(n.left);
        value(n.right);
        return;
      case "and":
      case "or":
        condition(n.left);
        condition(n.right);
        return;
      case "not":
        condition(n.operand);
        return;
      case "call":
        call(n);
        return;
    }
  };
  const call = (n: Expr & { kind: "call" }): void => {
    const fn = FUNCTIONS[n.fn];
    if (!fn) {
      fail(
        "UNKNOWN_FUNCTION",
        `unknown function '${n.fn}'${suggestion(n.fn, Object.keys(FUNCTIONS))}`,
        n.fnSpan,
      );
      return;
    }
    if (!ctx.allowGeometry && (fn.geometry || fn.stateful)) {
      fail(
        "CONDITION_NEEDS_SIGNAL",
        `${n.fn}() cannot be used in a condition: define it as a signal (so it is smoothed) and compare the signal`,
        n.fnSpan,
      );
      return;
    }
    if (fn.variadicValues) {
      if (n.args.length < 1 || n.args.length > 8) {
        fail("ARGUMENT_COUNT", `${n.fn}() takes 1 to 8 values, found ${n.args.length}`, n.span);
        return;
      }
      if (fn.visibleSignals) {
        const bad = n.args.find((a) => a.kind !== "ref");
        if (bad) {
          fail(
            "ARGUMENT_INVALID",
            `${n.fn}() takes signal names such as left.knee_angle (define an expression as a signal first)`,
            bad.span,
          );
          return;
        }
      }
      n.args.forEach(value);
      return;
    }
    if (n.args.length !== fn.args.length) {
      fail(
        "ARGUMENT_COUNT",
        `${n.fn}() takes ${fn.args.length} argument${fn.args.length === 1 ? "" : "s"}, found ${n.args.length}`,
        n.span,
      );
      return;
    }
    if (fn.scaled) info.usesScale = true;
    const named: { name: string; ref: LandmarkRef; span: Span }[] = [];
    fn.args.forEach((kind, i) => {
      const a = n.args[i];
      if (kind === "landmark") {
        if (a.kind !== "ref" || a.side) {
          fail(
            "ARGUMENT_INVALID",
            `argument ${i + 1} of ${n.fn}() must be a landmark name such as knee or left_hip`,
            a.span,
          );
          return;
        }
        const lm = parseLandmarkName(a.name);
        if (!lm) {
          fail(
            "UNKNOWN_LANDMARK",
            `unknown landmark '${a.name}'${landmarkSuggestion(a.name)}`,
            a.span,
          );
          return;
        }
        if (lm.kind === "sided" || lm.kind === "opposite") info.sidedLandmarks = true;
        info.landmarks.add(a.name);
        named.push({ name: a.name, ref: lm, span: a.span });
      } else if (kind === "seconds") {
        if (a.kind !== "num" || !(a.value > 0) || a.value > 3600) {
          fail(
            "ARGUMENT_INVALID",
            `argument ${i + 1} of ${n.fn}() must be a number of seconds between 0 and 3600`,
            a.span,
          );
        }
      } else value(a);
    });
    if (!degenerateWarned) warnDegenerate(n.fn, named);
  };

  // Loads and runs, but a segment from a point to itself has no direction (the signal never gets
  // a value) and a point's distance to itself is always 0: almost always a typo for another
  // landmark, which the author should hear about. Names are compared as the engine resolves them
  // on each side the MoveSpec runs on (`knee` is `left_knee` with sides: left), and one warning
  // per expression is enough to send the author to it.
  let degenerateWarned = false;
  const warnDegenerate = (
    fn: string,
    named: readonly { name: string; ref: LandmarkRef; span: Span }[],
  ) => {
    for (const side of ctx.sides ?? ["none"]) {
      const first = new Map<string, string>();
      for (const { name, ref, span } of named) {
        const key = pointKey(ref, side);
        const earlier = first.get(key);
        if (earlier === undefined) {
          first.set(key, name);
          continue;
        }
        const what =
          earlier === name
            ? `the landmark '${name}' twice`
            : `'${earlier}' and '${name}', the same landmark ('${key}')${side === "none" ? "" : ` on the ${side} side`}`;
        ctx.issues.warn(
          "GEOMETRY_DEGENERATE",
          `${fn}() names ${what}, so it measures nothing (always the same value, or none); another landmark was probably meant`,
          { pos: spanPosition(src, span), path: src.path },
        );
        degenerateWarned = true;
        return;
      }
    }
  };

  if (want === "value") value(e);
  else condition(e);
  info.boolean = isBooleanExpr(e);
  return ctx.issues.errors.length === before ? info : undefined;
}

/** Interval arithmetic over an expression, given the ranges of the signals it uses. */
export function rangeOf(e: Expr, signalRange: (ref: string) => Range): Range {
  switch (e.kind) {
    case "num":
      return [e.value, e.value];
    case "ref":
      return signalRange(e.name);
    case "neg": {
      const r = rangeOf(e.operand, signalRange);
      return [-r[1], -r[0]];
    }
    case "arith": {
      const a = rangeOf(e.left, signalRange);
      const b = rangeOf(e.right, signalRange);
      if (e.op === "+") return [a[0] + b[0], a[1] + b[1]];
      if (e.op === "-") return [a[0] - b[1], a[1] - b[0]];
      if (e.op === "*") return span4(a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]);
      if (b[0] <= 0 && b[1] >= 0) return ANY;
      return span4(a[0] / b[0], a[0] / b[1], a[1] / b[0], a[1] / b[1]);
    }
    case "call": {
      const fn = FUNCTIONS[e.fn];
      if (fn?.range) return fn.range;
      const args = e.args.map((a) => rangeOf(a, signalRange));
      switch (e.fn) {
        case "abs": {
          const [lo, hi] = args[0];
          if (lo >= 0) return [lo, hi];
          if (hi <= 0) return [-hi, -lo];
          return [0, Math.max(-lo, hi)];
        }
        case "min":
        case "min_visible":
          return [Math.min(...args.map((a) => a[0])), Math.min(...args.map((a) => a[1]))];
        case "max":
        case "max_visible":
          return [Math.max(...args.map((a) => a[0])), Math.max(...args.map((a) => a[1]))];
        case "mean":
        case "mean_visible":
          return [Math.min(...args.map((a) => a[0])), Math.max(...args.map((a) => a[1]))];
        case "peak":
        case "trough":
          return args[0];
        default:
          return ANY;
      }
    }
    default:
      return ANY;
  }
}

const FUNCTION_UNITS: Readonly<Record<string, SignalUnit>> = {
  angle: "deg",
  angle2d: "deg",
  angle_to_vertical: "deg",
  angle_to_horizontal: "deg",
  distance: "scale",
  dx: "scale",
  dy: "scale",
  above: "scale",
  visibility: "fraction",
};

/**
 * The unit of an expression's value, given the units of the signals it uses: undefined for a
 * bare number or when units mix. Sums keep a unit; a quotient of like units is a ratio.
 */
export function unitOf(
  e: Expr,
  signalUnit: (ref: string) => SignalUnit | undefined,
): SignalUnit | "number" | undefined {
  switch (e.kind) {
    case "num":
      return "number";
    case "ref":
      return signalUnit(e.name);
    case "neg":
      return unitOf(e.operand, signalUnit);
    case "arith": {
      const a = unitOf(e.left, signalUnit);
      const b = unitOf(e.right, signalUnit);
      if (e.op === "+" || e.op === "-")
        return a === "number" ? b : b === "number" || a === b ? a : undefined;
      if (e.op === "*") return a === "number" ? b : b === "number" ? a : undefined;
      if (b === "number") return a;
      return a !== undefined && a === b ? "ratio" : undefined;
    }
    case "call": {
      const fixed = FUNCTION_UNITS[e.fn];
      if (fixed) return fixed;
      const args = e.args.map((a) => unitOf(a, signalUnit));
      if (e.fn === "velocity")
        return args[0] === "deg" ? "deg/s" : args[0] === "scale" ? "scale/s" : undefined;
      if (e.fn === "peak" || e.fn === "trough") return args[0];
      const units = new Set(args.filter((u) => u !== "number"));
      return units.size === 1 ? [...units][0] : units.size === 0 ? "number" : undefined;
    }
    default:
      return undefined;
  }
}

function span4(...xs: number[]): Range {
  const finite = xs.map((x) => (Number.isNaN(x) ? 0 : x));
  return [Math.min(...finite), Math.max(...finite)];
}
