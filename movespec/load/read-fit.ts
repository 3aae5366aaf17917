/**
 * Reads `fit:`, the numbers of a MoveSpec that `movespec fit` may choose from recordings:
 *
 *   fit:
 *     rest_level: { at: [phases.up.enter#1, phases.up.exit], range: [0.2, 0.4], step: 0.025 }
 *     min_range: { at: signals.depth.min_range, range: [10, 40] }
 *
 * Each parameter names the numbers it moves by their path in the document (`#n` picks the n-th
 * number of an expression, counted from the left); the first is the parameter's value, the
 * others move by the same amount. The engine never reads the block: it is resolved here only to
 * say where each number is written, so that a fitted MoveSpec is the author's file with those
 * numbers changed and nothing else.
 */
import type { FitParameter, FitTarget } from "../compiled-spec.js";
import { parseDuration } from "../duration.js";
import type { Expr } from "../expression/ast.js";
import { parseExpression } from "../expression/parser.js";
import { LOAD_LIMITS } from "./limits.js";
import { at, type Reader, suggestion } from "./reader.js";
import type { YMap, YNode, YScalar } from "./yaml-tree.js";

const NAME = /^[a-z][a-z0-9_]*$/;
const PATH = /^([A-Za-z0-9_]+(?:\[\d+\])*)(?:\.([A-Za-z0-9_]+(?:\[\d+\])*))*(?:#(\d+))?$/;
const DURATION_TEXT = /^(\s*)(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|sec|min)?\s*$/;
const UNIT_SECONDS: Readonly<Record<string, number>> = { "": 1, s: 1, sec: 1, ms: 0.001, min: 60 };

export function readFit(
  r: Reader,
  node: YNode | undefined,
  root: YMap,
  source: string,
): FitParameter[] {
  const out: FitParameter[] = [];
  const m = r.map(node, "fit");
  if (!m) return out;
  if (m.entries.length > LOAD_LIMITS.maxFitParameters) {
    r.issues.error(
      "TOO_MANY_DEFINITIONS",
      `fit frees at most ${LOAD_LIMITS.maxFitParameters} numbers (the search grows with each)`,
      at(m),
    );
    return out;
  }
  const owner = new Map<number, string>();
  for (const entry of m.entries) {
    const where = `fit.${entry.key}`;
    if (!NAME.test(entry.key)) {
      r.issues.error(
        "NAME_INVALID",
        `'${entry.key}' is not a valid parameter name (lower case letters, digits and _, starting with a letter)`,
        { pos: entry.keyPos, path: where },
      );
      continue;
    }
    const pm = r.map(entry.value, `the parameter '${entry.key}'`);
    if (!pm) continue;
    const k = r.keys(pm, ["at", "range", "step"], `the parameter '${entry.key}'`);
    const atNode = r.required(k, "at", pm, `the parameter '${entry.key}'`);
    const rangeNode = r.required(k, "range", pm, `the parameter '${entry.key}'`);
    const targets = atNode ? readTargets(r, atNode, root, source, entry.key, owner) : undefined;
    const range = rangeNode ? readRange(r, rangeNode, where) : undefined;
    if (!targets || !range) continue;
    let step = Number(((range[1] - range[0]) / DEFAULT_STEPS).toPrecision(12));
    if (k.has("step")) {
      const s = readAmount(r, k.get("step")!.value, `${where}.step`);
      if (s === undefined) continue;
      if (!(s > 0) || (range[1] - range[0]) / s > LOAD_LIMITS.maxFitSteps) {
        r.issues.error(
          "VALUE_INVALID",
          `${where}.step must be above 0 and cut the range into at most ${LOAD_LIMITS.maxFitSteps} steps`,
          at(k.get("step")!.value),
        );
        continue;
      }
      step = s;
    }
    out.push({ name: entry.key, range, step, targets });
  }
  return out;
}

/** Grid steps across a range when `step` is not given (11 values). */
const DEFAULT_STEPS = 10;

function readRange(r: Reader, node: YNode, where: string): [number, number] | undefined {
  if (node.kind !== "seq" || node.items.length !== 2) {
    r.issues.error(
      "TYPE_MISMATCH",
      `${where}.range must be a list of two values, [low, high]`,
      at(node),
    );
    return undefined;
  }
  const lo = readAmount(r, node.items[0], `${where}.range`);
  const hi = readAmount(r, node.items[1], `${where}.range`);
  if (lo === undefined || hi === undefined) return undefined;
  if (!(lo < hi)) {
    r.issues.error("VALUE_INVALID", `${where}.range must go from low to high`, at(node));
    return undefined;
  }
  return [lo, hi];
}

/** A number, or a duration written with its unit (`0.2s`): ranges of durations are in seconds. */
function readAmount(r: Reader, node: YNode, what: string): number | undefined {
  if (node.kind === "scalar" && typeof node.value === "string") {
    const seconds = parseDuration(node.value);
    if (seconds !== undefined) return seconds;
  }
  return r.number(node, what);
}

function readTargets(
  r: Reader,
  node: YNode,
  root: YMap,
  source: string,
  name: string,
  owner: Map<number, string>,
): FitTarget[] | undefined {
  const items = node.kind === "seq" ? node.items : [node];
  if (items.length === 0 || items.length > LOAD_LIMITS.maxFitTargets) {
    r.issues.error(
      "VALUE_INVALID",
      `fit.${name}.at names 1 to ${LOAD_LIMITS.maxFitTargets} numbers`,
      at(node),
    );
    return undefined;
  }
  const targets: FitTarget[] = [];
  let ok = true;
  for (const item of items) {
    const path = r.string(item, `fit.${name}.at`, { maxLength: 200 });
    if (path === undefined) {
      ok = false;
      continue;
    }
    const found = resolveTarget(root, source, path);
    if (typeof found === "string") {
      r.issues.error("FIT_TARGET_INVALID", `fit.${name}.at: '${path}' ${found}`, at(item));
      ok = false;
      continue;
    }
    const other = owner.get(found.start);
    if (other !== undefined) {
      r.issues.error(
        "FIT_TARGET_INVALID",
        other === name
          ? `fit.${name}.at names '${path}' twice`
          : `fit.${name}.at: '${path}' is already fitted by '${other}'`,
        at(item),
      );
      ok = false;
      continue;
    }
    owner.set(found.start, name);
    targets.push(found);
  }
  return ok ? targets : undefined;
}

/** The number a path names, or why it names none. */
export function resolveTarget(root: YMap, source: string, path: string): FitTarget | string {
  const m = PATH.exec(path);
  if (!m) return "is not a path (such as signals.depth.min_range or phases.up.enter#1)";
  const [body, index] = path.split("#");
  let node: YNode = root;
  for (const part of body.split(".")) {
    const [key, ...indices] = part.split("[");
    if (node.kind !== "map") return `does not lead anywhere: ${node.path} has no '${key}'`;
    const keys: string[] = node.entries.map((e) => e.key);
    const next: YNode | undefined = node.entries.find((e) => e.key === key)?.value;
    if (!next)
      return `does not lead anywhere: ${node.path || "the MoveSpec"} has no '${key}'${suggestion(key, keys)}`;
    node = next;
    for (const i of indices) {
      const n = Number(i.slice(0, -1));
      if (node.kind !== "seq" || n >= node.items.length)
        return `does not lead anywhere: ${node.path} has no item [${n}]`;
      node = node.items[n];
    }
  }
  if (node.kind !== "scalar") return "names a mapping or a list, not a number";
  const nth = index === undefined ? undefined : Number(index);
  if (typeof node.value === "number") {
    if (nth !== undefined) return "is a single number: drop the #";
    return numberTarget(node, source, path);
  }
  if (typeof node.value !== "string") return "is not a number";
  const duration = DURATION_TEXT.exec(node.value);
  if (duration) {
    if (nth !== undefined) return "is a single duration: drop the #";
    return durationTarget(node, source, path, duration);
  }
  return expressionTarget(node, path, nth);
}

function numberTarget(node: YScalar, source: string, path: string): FitTarget | string {
  const [start, end] = node.range ?? [];
  if (start === undefined || end === undefined || !/^[-+.\d]/.test(source.slice(start, end)))
    return "is written in a way fit cannot rewrite";
  return { path, value: node.value as number, start, end, form: "number", unitSeconds: 1 };
}

function durationTarget(
  node: YScalar,
  source: string,
  path: string,
  m: RegExpExecArray,
): FitTarget | string {
  const from = node.sourceOffset(m[1].length);
  const to = node.sourceOffset(m[1].length + m[2].length);
  if (from === undefined || to === undefined || source.slice(from, to) !== m[2])
    return "is written in a way fit cannot rewrite";
  const unitSeconds = UNIT_SECONDS[m[3] ?? ""];
  return {
    path,
    value: Number(m[2]) * unitSeconds,
    start: from,
    end: to,
    form: "duration",
    unitSeconds,
  };
}

function expressionTarget(
  node: YScalar,
  path: string,
  nth: number | undefined,
): FitTarget | string {
  let expr: Expr;
  try {
    expr = parseExpression(node.value as string);
  } catch {
    return "is neither a number, a duration nor an expression";
  }
  const numbers = numbersOf(expr);
  if (numbers.length === 0) return "has no number in it";
  if (nth === undefined && numbers.length > 1)
    return `has ${numbers.length} numbers: say which with #1 to #${numbers.length} (from the left)`;
  const n = nth ?? 1;
  if (n < 1 || n > numbers.length)
    return `has ${numbers.length} number${numbers.length > 1 ? "s" : ""}: #${n} is not one of them`;
  const { value, start, end } = numbers[n - 1];
  const from = node.sourceOffset(start);
  const to = node.sourceOffset(end);
  if (from === undefined || to === undefined)
    return "is an expression fit cannot rewrite in place (write it on one line, without escapes)";
  return { path, value, start: from, end: to, form: "expression", unitSeconds: 1 };
}

/** The number literals of an expression, left to right; a negated literal is one number. */
function numbersOf(e: Expr): { value: number; start: number; end: number }[] {
  const out: { value: number; start: number; end: number }[] = [];
  const visit = (x: Expr) => {
    switch (x.kind) {
      case "num":
        out.push({ value: x.value, start: x.span.start, end: x.span.end });
        return;
      case "neg":
        if (x.operand.kind === "num")
          out.push({ value: -x.operand.value, start: x.span.start, end: x.span.end });
        else visit(x.operand);
        return;
      case "call":
        for (const a of x.args) visit(a);
        return;
      case "not":
        visit(x.operand);
        return;
      case "arith":
      case "compare":
      case "and":
      case "or":
        visit(x.left);
        visit(x.right);
        return;
      case "ref":
        return;
    }
  };
  visit(e);
  return out.sort((a, b) => a.start - b.start);
}
