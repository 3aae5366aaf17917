import type { Expr } from "./ast.js";
import { FUNCTIONS } from "./functions.js";

/** Calls `fn` for every signal reference in an expression (landmark arguments are not signals). */
export function forEachRef(e: Expr, fn: (ref: Expr & { kind: "ref" }) => void): void {
  switch (e.kind) {
    case "ref":
      fn(e);
      return;
    case "call":
      if (!FUNCTIONS[e.fn]?.geometry) {
        for (const a of e.args) forEachRef(a, fn);
      }
      return;
    case "neg":
    case "not":
      forEachRef(e.operand, fn);
      return;
    case "arith":
    case "compare":
    case "and":
    case "or":
      forEachRef(e.left, fn);
      forEachRef(e.right, fn);
      return;
    default:
      return;
  }
}

/** Signal references as written: `knee` or `left.knee`. */
export function signalRefs(e: Expr): string[] {
  const out: string[] = [];
  forEachRef(e, (r) => {
    out.push(r.side ? `${r.side}.${r.name}` : r.name);
  });
  return out;
}
