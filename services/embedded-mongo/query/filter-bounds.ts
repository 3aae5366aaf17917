/**
 * Reads a query filter into per-field index bounds: equality points ($eq, $in, literal
 * values, `$all` alternatives) and ranges ($gt/$gte/$lt/$lte, anchored regex prefixes).
 * Bounds only ever over-approximate: every candidate is re-checked by the full matcher, so
 * anything not understood here simply contributes no bound.
 */
import {
  BoundSentinel,
  type Doc,
  isOperatorObject,
  isPlainObject,
  typeOrder,
} from "../bson-values.js";

export interface FieldBounds {
  /** Equality points; a document matching the filter has a key equal to one of them. */
  points?: unknown[];
  /** Alternatives from `$all`: any single one is a valid point bound. */
  allOf?: unknown[];
  lo?: unknown;
  hi?: unknown;
  loExclusive?: boolean;
  hiExclusive?: boolean;
  /** True when the bounds express the field's whole condition (no re-check needed for it). */
  exact: boolean;
}

export interface FilterAnalysis {
  fields: Map<string, FieldBounds>;
  /** Top-level `$or` branches, when present. */
  or?: Doc[];
  /** Whether every condition in the filter is captured by `fields`. */
  fullyCaptured: boolean;
}

const RANGE_OPS = new Set(["$gt", "$gte", "$lt", "$lte"]);
const REGEX_SPECIAL = /[.*+?^${}()|[\]\\]/;

export function analyzeFilter(filter: Doc): FilterAnalysis {
  const analysis: FilterAnalysis = { fields: new Map(), fullyCaptured: true };
  collectConjunction(filter, analysis);
  return analysis;
}

function collectConjunction(filter: Doc, analysis: FilterAnalysis): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and" && Array.isArray(value)) {
      for (const clause of value) if (isPlainObject(clause)) collectConjunction(clause, analysis);
      continue;
    }
    if (key === "$or" && Array.isArray(value) && !analysis.or) {
      analysis.or = value.filter(isPlainObject);
      analysis.fullyCaptured = false;
      continue;
    }
    if (key === "$comment") continue;
    if (key.startsWith("$")) {
      analysis.fullyCaptured = false;
      continue;
    }
    const bounds = boundsForCondition(value);
    const existing = analysis.fields.get(key);
    if (existing) {
      analysis.fields.set(key, mergeBounds(existing, bounds));
    } else {
      analysis.fields.set(key, bounds);
    }
    if (!bounds.exact) analysis.fullyCaptured = false;
  }
}

function mergeBounds(a: FieldBounds, b: FieldBounds): FieldBounds {
  // Keep one side's points (either is a valid superset); combine ranges.
  return {
    points: a.points ?? b.points,
    allOf: a.allOf ?? b.allOf,
    lo: a.lo ?? b.lo,
    hi: a.hi ?? b.hi,
    loExclusive: a.lo !== undefined ? a.loExclusive : b.loExclusive,
    hiExclusive: a.hi !== undefined ? a.hiExclusive : b.hiExclusive,
    exact: false,
  };
}

function boundsForCondition(value: unknown): FieldBounds {
  if (value instanceof RegExp) return regexBounds(value) ?? { exact: false };
  if (Array.isArray(value)) return { exact: false };
  if (!isOperatorObject(value)) return { points: [value], exact: true };
  const bounds: FieldBounds = { exact: true };
  for (const [op, operand] of Object.entries(value)) {
    if (op === "$eq" && !Array.isArray(operand) && !(operand instanceof RegExp)) {
      bounds.points = [operand];
    } else if (op === "$in" && Array.isArray(operand) && !operand.some(isComplexInValue)) {
      bounds.points = operand;
    } else if (op === "$all" && Array.isArray(operand) && operand.length > 0) {
      if (operand.some(isComplexInValue)) bounds.exact = false;
      else {
        bounds.allOf = operand;
        if (operand.length > 1) bounds.exact = false;
      }
    } else if (RANGE_OPS.has(op) && operand !== null && !Array.isArray(operand)) {
      if (op === "$gt" || op === "$gte") {
        bounds.lo = operand;
        bounds.loExclusive = op === "$gt";
      } else {
        bounds.hi = operand;
        bounds.hiExclusive = op === "$lt";
      }
    } else if (op === "$regex" && (operand instanceof RegExp || typeof operand === "string")) {
      const options = typeof value.$options === "string" ? value.$options : "";
      const regex = operand instanceof RegExp ? operand : safeRegExp(operand, options);
      const r = regex ? regexBounds(regex) : undefined;
      if (r) {
        bounds.lo = r.lo;
        bounds.hi = r.hi;
      }
      bounds.exact = false;
    } else if (op !== "$options") {
      bounds.exact = false;
    }
  }
  return bounds;
}

function isComplexInValue(v: unknown): boolean {
  return v instanceof RegExp || Array.isArray(v) || isOperatorObject(v);
}

function safeRegExp(source: string, flags: string): RegExp | undefined {
  try {
    return new RegExp(source, flags.replace(/[^imsu]/g, ""));
  } catch {
    return undefined;
  }
}

/** /^prefix/ without flags becomes the string range [prefix, prefix + U+FFFF]. */
function regexBounds(regex: RegExp): FieldBounds | undefined {
  if (regex.flags.includes("i") || regex.flags.includes("m") || !regex.source.startsWith("^")) {
    return undefined;
  }
  let prefix = "";
  for (const ch of regex.source.slice(1)) {
    if (REGEX_SPECIAL.test(ch)) break;
    prefix += ch;
  }
  if (prefix.length === 0) return { lo: "", hi: new BoundSentinel(4, true), exact: false };
  return { lo: prefix, hi: `${prefix}\uffff`, exact: false };
}

export interface ValueInterval {
  lo: unknown;
  hi: unknown;
  loExclusive?: boolean;
  hiExclusive?: boolean;
}

/** Value-space intervals for one field, bracketing open ranges to the operand's type. */
export function fieldIntervals(bounds: FieldBounds, point?: unknown): ValueInterval[] | undefined {
  if (point !== undefined) return [{ lo: point, hi: point }];
  if (bounds.points) {
    return bounds.points.map((p) => ({ lo: p ?? null, hi: p ?? null }));
  }
  if (bounds.lo !== undefined || bounds.hi !== undefined) {
    const lo = bounds.lo ?? new BoundSentinel(typeOrder(bounds.hi), false);
    const hi = bounds.hi ?? new BoundSentinel(typeOrder(bounds.lo), true);
    return [
      {
        lo,
        hi,
        loExclusive: bounds.lo !== undefined && bounds.loExclusive,
        hiExclusive: bounds.hi !== undefined && bounds.hiExclusive,
      },
    ];
  }
  return undefined;
}
