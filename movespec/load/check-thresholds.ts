/**
 * Checks the numbers that conditions compare signals with, once every signal's range and unit is
 * known: a threshold outside the values a signal can take (in phases, form rules and the start
 * condition alike), and angle thresholds that look like radians.
 */
import type { SignalDef, SignalUnit } from "../compiled-spec.js";
import type { CompareOp, Expr } from "../expression/ast.js";
import { type ExprSource, type Range, rangeOf, spanPosition, unitOf } from "./check-expression.js";
import type { Reader } from "./reader.js";

/** A condition as written, with where it came from (collected by readCondition). */
export interface ConditionSite {
  readonly expr: Expr;
  readonly src: ExprSource;
}

/** One `value <op> number` comparison, normalised so that the number is on the right. */
interface Threshold {
  readonly value: Expr;
  readonly op: CompareOp;
  readonly number: number;
  readonly compare: Expr;
}

const FLIPPED: Record<CompareOp, CompareOp> = { "<": ">", "<=": ">=", ">": "<", ">=": "<=" };
const ANY: Range = [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];

function thresholdsOf(e: Expr, out: Threshold[] = []): Threshold[] {
  if (e.kind === "compare") {
    if (e.right.kind === "num" && e.left.kind !== "num")
      out.push({ value: e.left, op: e.op, number: e.right.value, compare: e });
    else if (e.left.kind === "num" && e.right.kind !== "num")
      out.push({ value: e.right, op: FLIPPED[e.op], number: e.left.value, compare: e });
  } else if (e.kind === "and" || e.kind === "or") {
    thresholdsOf(e.left, out);
    thresholdsOf(e.right, out);
  } else if (e.kind === "not") thresholdsOf(e.operand, out);
  return out;
}

const UNIT_WORDS: Record<SignalUnit, string> = {
  deg: "an angle in degrees",
  "deg/s": "a speed in degrees per second",
  scale: "a distance in body scales",
  "scale/s": "a speed in body scales per second",
  fraction: "a fraction",
  ratio: "a ratio",
};

function rangeText(r: Range): string {
  const f = (x: number) => (Number.isFinite(x) ? String(+x.toFixed(3)) : x > 0 ? "inf" : "-inf");
  return `[${f(r[0])}, ${f(r[1])}]`;
}

/**
 * Warns where a comparison can never hold or always holds because its number lies outside the
 * values the compared signal (or arithmetic on signals) can take.
 */
export function checkThresholdRanges(
  r: Reader,
  sites: readonly ConditionSite[],
  signals: readonly SignalDef[],
): void {
  const byName = new Map(signals.map((s) => [s.name, s]));
  const rangeOfRef = (name: string) => byName.get(name)?.range ?? ANY;
  const unitOfRef = (name: string) => byName.get(name)?.unit;
  // A condition that already has an error (an unreachable phase) needs no second word on it.
  const failed = new Set(r.issues.errors.map((e) => e.path));
  for (const site of sites) {
    if (failed.has(site.src.path)) continue;
    for (const t of thresholdsOf(site.expr)) {
      const range = rangeOf(t.value, rangeOfRef);
      if (!(t.number < range[0] || t.number > range[1])) continue;
      const text = site.src.text.slice(t.compare.span.start, t.compare.span.end);
      const what = site.src.text.slice(t.value.span.start, t.value.span.end);
      const above = t.number > range[1];
      const never = above === (t.op === ">" || t.op === ">=");
      const unit = unitOf(t.value, unitOfRef);
      const kind = unit && unit !== "number" ? ` is ${UNIT_WORDS[unit]} and` : "";
      r.issues.warn(
        "THRESHOLD_OUT_OF_RANGE",
        `'${text}' ${never ? "can never hold" : "always holds"}${consequence(site.src.path, never)}: '${what}'${kind} is always within ${rangeText(range)}; use a threshold inside that range`,
        { pos: spanPosition(site.src, t.compare.span), path: site.src.path },
      );
    }
  }
}

/** What a condition that never (or always) holds does to the detection, where it is not obvious. */
function consequence(path: string, never: boolean): string {
  if (path.startsWith("repetition.start.when"))
    return never ? ", so the start condition is never met and nothing is counted" : "";
  if (path.startsWith("form["))
    return never ? ", so the rule never fires" : ", so the rule fires all the time";
  return "";
}

/**
 * Angles are degrees. When every number compared with an angle fits in 0..2pi and one of them
 * has a fraction, the author almost certainly wrote radians: the MoveSpec would load and count 0.
 */
export function checkRadians(
  r: Reader,
  sites: readonly ConditionSite[],
  signals: readonly SignalDef[],
): void {
  const byName = new Map(signals.map((s) => [s.name, s]));
  const unitOfRef = (name: string) => byName.get(name)?.unit;
  const angles: { site: ConditionSite; t: Threshold }[] = [];
  for (const site of sites)
    for (const t of thresholdsOf(site.expr))
      if (unitOf(t.value, unitOfRef) === "deg") angles.push({ site, t });
  if (angles.length === 0) return;
  if (!angles.every(({ t }) => Math.abs(t.number) <= 2 * Math.PI + 1e-9)) return;
  const fractional = angles.find(({ t }) => !Number.isInteger(t.number));
  if (!fractional) return;
  const { site, t } = fractional;
  const degrees = +((t.number * 180) / Math.PI).toFixed(1);
  r.issues.warn(
    "ANGLE_IN_RADIANS",
    `radians? angles are degrees (0..180), but all ${angles.length} angle thresholds of this MoveSpec lie within 0..6.28, as radians would: write ${degrees} for ${t.number}, and so on`,
    { pos: spanPosition(site.src, t.compare.span), path: site.src.path },
  );
}
