/**
 * Reads an adaptive signal (the long form of a signal with `adaptive:`): its source signal, the
 * rest end, the window, the percentiles and the minimum range; then, once the source is defined,
 * checks that the two fit together.
 */
import type { AdaptiveDef, SignalDef } from "../compiled-spec.js";
import type { Expr } from "../expression/ast.js";
import type { Position } from "../issues.js";
import { checkExpression, type ExprInfo, type ExprSource, parseAt } from "./check-expression.js";
import { at, type Reader } from "./reader.js";
import type { YEntry, YMap, YNode } from "./yaml-tree.js";

const ADAPTIVE_KEYS = ["adaptive", "rest", "window", "percentiles", "min_range"] as const;
const ADAPTIVE_DEFAULTS = { window: 5, percentiles: [10, 90] as const };
/** Seconds: shorter loses the range inside one slow repetition; longer is memory (60 samples/s). */
const ADAPTIVE_WINDOW_LIMITS = { min: 1, max: 60 };
/** A min_range below this fraction of what the source can span lets noise count. */
const SMALL_MIN_RANGE = 0.02;

export interface AdaptiveRead {
  readonly expr: Expr & { kind: "ref" };
  readonly src: ExprSource;
  readonly info: ExprInfo;
  readonly def: AdaptiveDef;
  /** Where min_range was written, for the checks against the source. */
  readonly minRangeNode: YNode;
}

export function isAdaptive(node: YNode): boolean {
  return node.kind === "map" && node.entries.some((e) => e.key === "adaptive");
}

export function readAdaptive(
  r: Reader,
  entry: YEntry,
  names: ReadonlySet<string>,
  position: (offset: number) => Position,
): AdaptiveRead | undefined {
  const map = entry.value as YMap;
  const what = `adaptive signal '${entry.key}'`;
  const k = r.keys(map, [...ADAPTIVE_KEYS, "expr", "smoothing"], what);
  let ok = true;
  if (k.has("expr")) {
    ok = false;
    r.issues.error(
      "VALUE_INVALID",
      `${what} follows the signal named by 'adaptive'; it has no 'expr' (define the expression as a signal of its own)`,
      { pos: k.get("expr")!.keyPos, path: `signals.${entry.key}.expr` },
    );
  }
  if (k.has("smoothing")) {
    ok = false;
    r.issues.error(
      "VALUE_INVALID",
      `${what} is not smoothed itself: give its source signal the smoothing`,
      { pos: k.get("smoothing")!.keyPos, path: `signals.${entry.key}.smoothing` },
    );
  }
  const source = readSource(r, k.get("adaptive")!.value, what, names, position);
  const rest = r.oneOf(r.required(k, "rest", map, what), `${what}: rest`, ["low", "high"] as const);
  const window = k.has("window")
    ? readWindow(r, k.get("window")!.value, what)
    : ADAPTIVE_DEFAULTS.window;
  const percentiles = k.has("percentiles")
    ? readPercentiles(r, k.get("percentiles")!.value, what)
    : ADAPTIVE_DEFAULTS.percentiles;
  const minRangeNode = r.required(k, "min_range", map, what);
  const minRange = readMinRange(r, minRangeNode, what);
  if (
    !ok ||
    !source ||
    !rest ||
    window === undefined ||
    !percentiles ||
    minRange === undefined ||
    !minRangeNode
  )
    return undefined;
  return {
    ...source,
    def: { rest, window, percentiles: [percentiles[0], percentiles[1]], minRange },
    minRangeNode,
  };
}

/** `adaptive:` names the source signal, optionally on a side (`left.knee_angle`). */
function readSource(
  r: Reader,
  node: YNode,
  what: string,
  names: ReadonlySet<string>,
  position: (offset: number) => Position,
): { expr: Expr & { kind: "ref" }; src: ExprSource; info: ExprInfo } | undefined {
  const scalar = r.text(node, `${what}: adaptive`);
  if (!scalar) return undefined;
  const text = String(scalar.value);
  const src: ExprSource = { node: scalar, text, path: scalar.path, position };
  const expr = parseAt(src, r.issues);
  if (!expr) return undefined;
  if (expr.kind !== "ref") {
    r.issues.error(
      "ADAPTIVE_SOURCE_INVALID",
      `${what}: 'adaptive' takes the name of another signal, not an expression: define '${text}' as a signal and name it here`,
      at(scalar),
    );
    return undefined;
  }
  const info = checkExpression(
    expr,
    src,
    { issues: r.issues, signalNames: names, allowGeometry: false },
    "value",
  );
  return info ? { expr, src, info } : undefined;
}

function readWindow(r: Reader, node: YNode, what: string): number | undefined {
  const seconds = r.duration(node, `${what}: window`, { max: ADAPTIVE_WINDOW_LIMITS.max });
  if (seconds === undefined) return undefined;
  if (seconds < ADAPTIVE_WINDOW_LIMITS.min) {
    r.issues.error(
      "VALUE_INVALID",
      `${what}: window must be at least ${ADAPTIVE_WINDOW_LIMITS.min} s (a repetition must fit in it)`,
      at(node),
    );
    return undefined;
  }
  return seconds;
}

function readPercentiles(
  r: Reader,
  node: YNode,
  what: string,
): readonly [number, number] | undefined {
  const items = r.list(node, `${what}: percentiles`);
  if (!items) return undefined;
  const values = items.map((item) =>
    r.number(item, `${what}: each percentile`, { min: 0, max: 100 }),
  );
  if (values.some((v) => v === undefined)) return undefined;
  if (values.length !== 2 || !((values[0] as number) < (values[1] as number))) {
    r.issues.error(
      "VALUE_INVALID",
      `${what}: percentiles must be [low, high] with low below high, e.g. [10, 90]`,
      at(node),
    );
    return undefined;
  }
  return [values[0] as number, values[1] as number];
}

function readMinRange(r: Reader, node: YNode | undefined, what: string): number | undefined {
  const v = r.number(node, `${what}: min_range`);
  if (v === undefined || !node) return undefined;
  if (!(v > 0)) {
    r.issues.error(
      "VALUE_INVALID",
      `${what}: min_range must be above 0 (in the source signal's units): without it noise and standing still would count`,
      at(node),
    );
    return undefined;
  }
  return v;
}

/**
 * Checks an adaptive signal against its defined source: the source is not adaptive itself, and
 * min_range fits what the source can span. False when the signal cannot be defined.
 */
export function checkAdaptiveSource(
  r: Reader,
  name: string,
  read: AdaptiveRead,
  source: SignalDef,
): boolean {
  const where = at(read.src.node);
  if (source.adaptive) {
    r.issues.error(
      "ADAPTIVE_SOURCE_INVALID",
      `adaptive signal '${name}' follows '${source.name}', which is adaptive itself: follow the signal '${source.name}' follows`,
      where,
    );
    return false;
  }
  const [lo, hi] = source.range;
  const span = hi - lo;
  if (!Number.isFinite(span)) return true;
  const minRange = read.def.minRange;
  if (minRange > span) {
    r.issues.error(
      "ADAPTIVE_MIN_RANGE_UNREACHABLE",
      `adaptive signal '${name}': min_range ${minRange} is wider than '${source.name}' can ever span (${lo}..${hi}), so it would never move`,
      at(read.minRangeNode),
    );
    return false;
  }
  if (minRange < SMALL_MIN_RANGE * span) {
    r.issues.warn(
      "ADAPTIVE_MIN_RANGE_SMALL",
      `adaptive signal '${name}': min_range ${minRange} is under ${SMALL_MIN_RANGE * 100}% of what '${source.name}' can span (${lo}..${hi}), so noise and standing still may count`,
      at(read.minRangeNode),
    );
  }
  return true;
}
