/** Compiles a value expression (a signal definition, one side of a comparison) into a closure. */
import type { Expr } from "../../expression/ast.js";
import { FUNCTIONS } from "../../expression/functions.js";
import type { SideKey } from "../../sides.js";
import { compileArithmetic } from "./compile-arithmetic.js";
import type { CompileContext, Reads } from "./compile-context.js";
import { compileGeometry } from "./compile-geometry.js";
import { compileTemporal } from "./compile-temporal.js";
import { slotOfRef } from "./slots.js";

export function compileValue(
  ctx: CompileContext,
  e: Expr,
  side: SideKey,
  reads: Reads,
): () => number {
  switch (e.kind) {
    case "num": {
      const v = e.value;
      return () => v;
    }
    case "ref": {
      const idx = slotOfRef(ctx.defs, ctx.slotIndex, e, side)!;
      reads.deps.add(idx);
      const memory = ctx.memory;
      return () => memory.values[idx];
    }
    case "neg": {
      const f = compileValue(ctx, e.operand, side, reads);
      return () => -f();
    }
    case "arith": {
      const a = compileValue(ctx, e.left, side, reads);
      const b = compileValue(ctx, e.right, side, reads);
      switch (e.op) {
        case "+":
          return () => a() + b();
        case "-":
          return () => a() - b();
        case "*":
          return () => a() * b();
        case "/":
          return () => a() / b();
      }
      break;
    }
    case "call":
      return compileCall(ctx, e, side, reads);
  }
  throw new Error(`not a value: ${e.kind}`);
}

function compileCall(
  ctx: CompileContext,
  e: Expr & { kind: "call" },
  side: SideKey,
  reads: Reads,
): () => number {
  if (FUNCTIONS[e.fn]?.geometry) {
    // Landmark arguments: point slots, as offsets into the points array.
    const offsets = e.args.map((a) => {
      const p = ctx.points.landmark((a as Expr & { kind: "ref" }).name, side);
      // A position read needs the landmark visible; visibility() reads how visible it is, which
      // is most useful exactly when it is not (a rule on a landmark going out of sight).
      if (e.fn !== "visibility") reads.points.add(p);
      return p * 4;
    });
    return compileGeometry(e.fn, offsets, ctx.memory);
  }
  if (FUNCTIONS[e.fn]?.visibleSignals) return compileVisibleMean(ctx, e, side);
  const args = e.args.map((a) => compileValue(ctx, a, side, reads));
  if (FUNCTIONS[e.fn]?.stateful) return compileTemporal(e, args[0], ctx);
  return compileArithmetic(e.fn, args);
}

/**
 * mean_visible, min_visible, max_visible: the mean, smallest or largest of the argument signals
 * computed on this frame (NaN when none is). The arguments are not dependencies of the slot: it
 * is computed whichever of them are.
 */
function compileVisibleMean(
  ctx: CompileContext,
  e: Expr & { kind: "call" },
  side: SideKey,
): () => number {
  const slots = e.args.map(
    (a) => slotOfRef(ctx.defs, ctx.slotIndex, a as Expr & { kind: "ref" }, side)!,
  );
  const memory = ctx.memory;
  if (e.fn !== "mean_visible") {
    const lower = e.fn === "min_visible";
    return () => {
      let best = Number.NaN;
      for (let i = 0; i < slots.length; i++) {
        if (memory.fresh[slots[i]] !== 1) continue;
        const v = memory.values[slots[i]];
        if (Number.isNaN(best) || (lower ? v < best : v > best)) best = v;
      }
      return best;
    };
  }
  return () => {
    let sum = 0;
    let n = 0;
    for (let i = 0; i < slots.length; i++) {
      if (memory.fresh[slots[i]] === 1) {
        sum += memory.values[slots[i]];
        n++;
      }
    }
    return n > 0 ? sum / n : Number.NaN;
  };
}
