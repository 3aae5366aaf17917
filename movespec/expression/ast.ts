/** Abstract syntax of MoveSpec expressions (signal definitions and conditions). */

/** Character offsets into the expression text, end exclusive. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

export type CompareOp = "<" | "<=" | ">" | ">=";
export type ArithOp = "+" | "-" | "*" | "/";

export type Expr =
  | { kind: "num"; value: number; span: Span }
  | { kind: "ref"; name: string; side?: "left" | "right"; span: Span }
  | { kind: "call"; fn: string; args: Expr[]; span: Span; fnSpan: Span }
  | { kind: "neg"; operand: Expr; span: Span }
  | { kind: "arith"; op: ArithOp; left: Expr; right: Expr; span: Span }
  | { kind: "compare"; op: CompareOp; left: Expr; right: Expr; span: Span }
  | { kind: "and" | "or"; left: Expr; right: Expr; span: Span }
  | { kind: "not"; operand: Expr; span: Span };

export function isBooleanExpr(e: Expr): boolean {
  return e.kind === "compare" || e.kind === "and" || e.kind === "or" || e.kind === "not";
}
