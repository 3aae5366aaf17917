/**
 * Interval reasoning over simple conditions (`knee < 100`, `80 < hip and trunk < 30`): enough
 * to prove two phases overlap, a phase is unreachable, or enter and exit leave no band.
 * Conditions that are not conjunctions of signal-versus-number comparisons are not analysed.
 */
import type { CompareOp, Expr } from "../expression/ast.js";

export interface Interval {
  lo: number;
  loOpen: boolean;
  hi: number;
  hiOpen: boolean;
}

export const FULL: Interval = {
  lo: Number.NEGATIVE_INFINITY,
  loOpen: true,
  hi: Number.POSITIVE_INFINITY,
  hiOpen: true,
};

export function refKey(e: Expr & { kind: "ref" }): string {
  return e.side ? `${e.side}.${e.name}` : e.name;
}

function comparison(e: Expr): { key: string; op: CompareOp; value: number } | undefined {
  if (e.kind !== "compare") return undefined;
  if (e.left.kind === "ref" && e.right.kind === "num")
    return { key: refKey(e.left), op: e.op, value: e.right.value };
  if (e.left.kind === "num" && e.right.kind === "ref") {
    const flipped: Record<CompareOp, CompareOp> = { "<": ">", "<=": ">=", ">": "<", ">=": "<=" };
    return { key: refKey(e.right), op: flipped[e.op], value: e.left.value };
  }
  return undefined;
}

function intervalOf(op: CompareOp, v: number): Interval {
  switch (op) {
    case "<":
      return { ...FULL, hi: v, hiOpen: true };
    case "<=":
      return { ...FULL, hi: v, hiOpen: false };
    case ">":
      return { ...FULL, lo: v, loOpen: true };
    case ">=":
      return { ...FULL, lo: v, loOpen: false };
  }
}

export function intersect(a: Interval, b: Interval): Interval {
  const lo = Math.max(a.lo, b.lo);
  const hi = Math.min(a.hi, b.hi);
  return {
    lo,
    loOpen: (a.lo === lo && a.loOpen) || (b.lo === lo && b.loOpen),
    hi,
    hiOpen: (a.hi === hi && a.hiOpen) || (b.hi === hi && b.hiOpen),
  };
}

export function isEmpty(i: Interval): boolean {
  return i.lo > i.hi || (i.lo === i.hi && (i.loOpen || i.hiOpen));
}

const NEGATED: Record<CompareOp, CompareOp> = { "<": ">=", "<=": ">", ">": "<=", ">=": "<" };

/** Pushes `not` inwards where that keeps the condition a conjunction of comparisons. */
function normalise(e: Expr, negate = false): Expr {
  if (e.kind === "not") return normalise(e.operand, !negate);
  if (!negate)
    return e.kind === "and" ? { ...e, left: normalise(e.left), right: normalise(e.right) } : e;
  if (e.kind === "compare") return { ...e, op: NEGATED[e.op] };
  if (e.kind === "or")
    return {
      kind: "and",
      left: normalise(e.left, true),
      right: normalise(e.right, true),
      span: e.span,
    };
  return { kind: "not", operand: e, span: e.span };
}

/** Per-signal intervals of a conjunction of simple comparisons, or undefined. */
export function conjunctionIntervals(e: Expr): Map<string, Interval> | undefined {
  const out = new Map<string, Interval>();
  const visit = (n: Expr): boolean => {
    if (n.kind === "and") return visit(n.left) && visit(n.right);
    const c = comparison(n);
    if (!c) return false;
    out.set(c.key, intersect(out.get(c.key) ?? FULL, intervalOf(c.op, c.value)));
    return true;
  };
  return visit(normalise(e)) ? out : undefined;
}

/** True when some values satisfy both conjunctions. */
export function canBothHold(a: Map<string, Interval>, b: Map<string, Interval>): boolean {
  for (const [key, ia] of a) {
    const ib = b.get(key);
    if (ib && isEmpty(intersect(ia, ib))) return false;
  }
  for (const i of [...a.values(), ...b.values()]) if (isEmpty(i)) return false;
  return true;
}

/** The single comparison of a simple condition, when it is exactly one. */
export function singleComparison(
  e: Expr,
): { key: string; op: CompareOp; value: number } | undefined {
  return comparison(e);
}

/**
 * Loosens every threshold of a condition by `h` in the direction that keeps it true longer:
 * `knee > 160` with h = 10 becomes `knee > 150`. Used to derive a phase's exit from `hysteresis`.
 */
export function relax(e: Expr, h: number): Expr {
  switch (e.kind) {
    case "compare": {
      // left < right: loosen by adding h to the right side (or subtracting from the left).
      const shift = (x: Expr, by: number): Expr =>
        x.kind === "num"
          ? { ...x, value: x.value + by }
          : {
              kind: "arith",
              op: "+",
              left: x,
              right: { kind: "num", value: by, span: x.span },
              span: x.span,
            };
      if (e.op === "<" || e.op === "<=") {
        return e.right.kind === "num"
          ? { ...e, right: shift(e.right, h) }
          : { ...e, left: shift(e.left, -h) };
      }
      return e.right.kind === "num"
        ? { ...e, right: shift(e.right, -h) }
        : { ...e, left: shift(e.left, h) };
    }
    case "and":
    case "or":
      return { ...e, left: relax(e.left, h), right: relax(e.right, h) };
    case "not":
      return { ...e, operand: relax(e.operand, -h) };
    default:
      return e;
  }
}

export function intervalText(i: Interval): string {
  const lo = i.lo === Number.NEGATIVE_INFINITY ? "-inf" : String(i.lo);
  const hi = i.hi === Number.POSITIVE_INFINITY ? "inf" : String(i.hi);
  return `${i.loOpen ? "(" : "["}${lo}, ${hi}${i.hiOpen ? ")" : "]"}`;
}
