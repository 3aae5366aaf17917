/**
 * The stateful functions: they remember earlier frames in the shared state array and read the
 * frame time from memory.
 */
import type { Expr } from "../../expression/ast.js";
import type { CompileContext } from "./compile-context.js";

function initTwoNaN(s: Float64Array, at: number): void {
  s[at] = Number.NaN;
  s[at + 1] = Number.NaN;
}

/** `e` is velocity, peak or trough; `f` is its compiled first argument. */
export function compileTemporal(
  e: Expr & { kind: "call" },
  f: () => number,
  ctx: CompileContext,
): () => number {
  const memory = ctx.memory;
  switch (e.fn) {
    case "velocity": {
      const at = ctx.state.alloc(2, initTwoNaN); // last value, its time
      return () => {
        const s = memory.state;
        const x = f();
        const prev = s[at];
        const dt = memory.t - s[at + 1];
        s[at] = x;
        s[at + 1] = memory.t;
        if (Number.isNaN(prev) || !(dt > 0)) return 0;
        return (x - prev) / dt;
      };
    }
    case "peak":
    case "trough": {
      const tau = (e.args[1] as Expr & { kind: "num" }).value;
      const sign = e.fn === "peak" ? 1 : -1;
      const at = ctx.state.alloc(2, initTwoNaN); // current extreme, its time
      return () => {
        const s = memory.state;
        const x = f();
        if (Number.isNaN(x)) return s[at];
        const prev = s[at];
        const dt = memory.t - s[at + 1];
        s[at + 1] = memory.t;
        if (Number.isNaN(prev) || sign * (x - prev) >= 0) {
          s[at] = x;
          return x;
        }
        const y = prev + (1 - Math.exp(-dt / tau)) * (x - prev);
        s[at] = y;
        return y;
      };
    }
  }
  throw new Error(`unknown function ${e.fn}`);
}
