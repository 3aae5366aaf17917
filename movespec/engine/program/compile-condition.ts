/** Compiles a condition (a phase's enter or stay, a form rule, a start condition) on a side. */
import type { Expr } from "../../expression/ast.js";
import type { SideKey } from "../../sides.js";
import type { CompileContext, Reads } from "./compile-context.js";
import { compileValue } from "./compile-value.js";

export function compileCondition(ctx: CompileContext, e: Expr, side: SideKey): () => boolean {
  // Conditions compare signals only (no landmarks, no state): what they read is not needed.
  const reads: Reads = { points: new Set(), deps: new Set() };
  const cond = (n: Expr): (() => boolean) => {
    switch (n.kind) {
      case "and": {
        const a = cond(n.left);
        const b = cond(n.right);
        return () => a() && b();
      }
      case "or": {
        const a = cond(n.left);
        const b = cond(n.right);
        return () => a() || b();
      }
      case "not": {
        const a = cond(n.operand);
        return () => !a();
      }
      case "compare": {
        const a = compileValue(ctx, n.left, side, reads);
        const b = compileValue(ctx, n.right, side, reads);
        switch (n.op) {
          case "<":
            return () => a() < b();
          case "<=":
            return () => a() <= b();
          case ">":
            return () => a() > b();
          case ">=":
            return () => a() >= b();
        }
      }
    }
    throw new Error(`not a condition: ${n.kind}`);
  };
  return cond(e);
}
