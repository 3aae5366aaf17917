/**
 * A small recursive-descent parser for MoveSpec expressions:
 *
 *   knee < 100 and trunk_lean < 45
 *   angle(hip, knee, ankle)
 *   min(left.knee, right.knee) - 5
 *
 * Bounded by design: the text is short (limited by the loader) and nesting is capped, so hostile
 * input cannot exhaust the stack.
 */
import type { ArithOp, CompareOp, Expr, Span } from "./ast.js";

export class ExpressionSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

type TokenKind = "num" | "ident" | "op" | "(" | ")" | "," | "." | "end";
interface Token {
  kind: TokenKind;
  text: string;
  start: number;
  end: number;
}

const MAX_DEPTH = 32;
const OPS = ["<=", ">=", "<", ">", "+", "-", "*", "/"];

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      i++;
      continue;
    }
    const numMatch = /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(src.slice(i, i + 64));
    if (numMatch) {
      tokens.push({ kind: "num", text: numMatch[0], start: i, end: i + numMatch[0].length });
      i += numMatch[0].length;
      unitSuffix(src, numMatch[0], i);
      continue;
    }
    const identMatch = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i, i + 128));
    if (identMatch) {
      tokens.push({ kind: "ident", text: identMatch[0], start: i, end: i + identMatch[0].length });
      i += identMatch[0].length;
      continue;
    }
    if (c === "(" || c === ")" || c === "," || c === ".") {
      tokens.push({ kind: c, text: c, start: i, end: i + 1 });
      i++;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (op) {
      tokens.push({ kind: "op", text: op, start: i, end: i + op.length });
      i += op.length;
      continue;
    }
    if (src.startsWith("==", i) || c === "=") {
      throw new ExpressionSyntaxError("'=' is not supported: compare with <, <=, > or >=", i);
    }
    if (src.startsWith("&&", i) || src.startsWith("||", i) || c === "!") {
      throw new ExpressionSyntaxError("use the words 'and', 'or' and 'not'", i);
    }
    // The whole character, not half of a surrogate pair (an emoji would print as U+FFFD).
    const character = String.fromCodePoint(src.codePointAt(i) ?? 0xfffd);
    throw new ExpressionSyntaxError(`unexpected character '${character}'`, i);
  }
  tokens.push({ kind: "end", text: "", start: src.length, end: src.length });
  return tokens;
}

/**
 * A number followed by a unit (`80deg`, `0.5 s`, `80%`) is never valid: a number is not followed
 * by a name. Authors write units out of habit, so say what the language expects instead.
 */
const UNIT_AFTER_NUMBER = /^\s*(°|%|[A-Za-z]+)/;
function unitSuffix(src: string, number: string, at: number): void {
  const m = UNIT_AFTER_NUMBER.exec(src.slice(at, at + 16));
  if (!m) return;
  const unit = m[1];
  const where = at + m[0].length - unit.length;
  const value = Number(number);
  const word = unit.toLowerCase();
  if (unit === "°" || /^deg(ree)?s?$/.test(word))
    throw new ExpressionSyntaxError(
      `angles are bare degrees: write ${number}, not ${number}${unit}`,
      where,
    );
  if (/^rad(ian)?s?$/.test(word))
    throw new ExpressionSyntaxError(
      `angles are bare degrees, not radians: write ${+((value * 180) / Math.PI).toFixed(1)} for ${number} ${unit}`,
      where,
    );
  if (/^(ms|s|secs?|seconds?|min|minutes?)$/.test(word))
    throw new ExpressionSyntaxError(
      `an expression compares signal values, not durations: write ${number} without '${unit}' (durations go in keys such as min_dwell, for and within)`,
      where,
    );
  if (unit === "%")
    throw new ExpressionSyntaxError(
      `percentages are written as fractions: write ${+(value / 100).toFixed(4)} for ${number}%`,
      where,
    );
  if (/^(px|mm|cm|m|in|inch(es)?)$/.test(word))
    throw new ExpressionSyntaxError(
      `distances are in body scales (torso lengths by default), not ${unit}: write a bare number such as 0.5`,
      where,
    );
}

const KEYWORDS = new Set(["and", "or", "not"]);
/** The arithmetic levels, loosest first: `a - b * c` is `a - (b * c)`. */
const SUM_OPS: ReadonlySet<string> = new Set(["+", "-"]);
const PRODUCT_OPS: ReadonlySet<string> = new Set(["*", "/"]);

class Parser {
  private pos = 0;
  private depth = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.pos];
  }
  private next(): Token {
    return this.tokens[this.pos++];
  }
  private isWord(word: string): boolean {
    const t = this.peek();
    return t.kind === "ident" && t.text === word;
  }
  private expect(kind: TokenKind, what: string): Token {
    const t = this.peek();
    if (t.kind !== kind) throw new ExpressionSyntaxError(`expected ${what}${found(t)}`, t.start);
    return this.next();
  }
  private enter(at: number): void {
    if (++this.depth > MAX_DEPTH)
      throw new ExpressionSyntaxError("expression nested too deeply", at);
  }

  parseAll(): Expr {
    const e = this.parseOr();
    const t = this.peek();
    if (t.kind !== "end") throw new ExpressionSyntaxError(`unexpected ${describe(t)}`, t.start);
    return e;
  }

  private parseOr(): Expr {
    let left = this.parseAnd();
    while (this.isWord("or")) {
      this.next();
      const right = this.parseAnd();
      left = { kind: "or", left, right, span: join(left.span, right.span) };
    }
    return left;
  }

  private parseAnd(): Expr {
    let left = this.parseNot();
    while (this.isWord("and")) {
      this.next();
      const right = this.parseNot();
      left = { kind: "and", left, right, span: join(left.span, right.span) };
    }
    return left;
  }

  private parseNot(): Expr {
    if (this.isWord("not")) {
      const t = this.next();
      this.enter(t.start);
      const operand = this.parseNot();
      this.depth--;
      return { kind: "not", operand, span: { start: t.start, end: operand.span.end } };
    }
    return this.parseCompare();
  }

  private parseCompare(): Expr {
    const left = this.parseSum();
    const t = this.peek();
    if (
      t.kind === "op" &&
      (t.text === "<" || t.text === "<=" || t.text === ">" || t.text === ">=")
    ) {
      this.next();
      const right = this.parseSum();
      const first: Expr = {
        kind: "compare",
        op: t.text as CompareOp,
        left,
        right,
        span: join(left.span, right.span),
      };
      const t2 = this.peek();
      if (
        t2.kind === "op" &&
        (t2.text === "<" || t2.text === "<=" || t2.text === ">" || t2.text === ">=")
      ) {
        // a < x < b  means  a < x and x < b
        this.next();
        const third = this.parseSum();
        const second: Expr = {
          kind: "compare",
          op: t2.text as CompareOp,
          left: right,
          right: third,
          span: join(right.span, third.span),
        };
        return { kind: "and", left: first, right: second, span: join(left.span, third.span) };
      }
      return first;
    }
    return left;
  }

  private parseSum(): Expr {
    return this.parseArithmetic(SUM_OPS, () => this.parseProduct());
  }

  private parseProduct(): Expr {
    return this.parseArithmetic(PRODUCT_OPS, () => this.parseUnary());
  }

  /** One left-associative level of arithmetic: `operand`s joined by the level's operators. */
  private parseArithmetic(ops: ReadonlySet<string>, operand: () => Expr): Expr {
    let left = operand();
    for (;;) {
      const t = this.peek();
      if (t.kind !== "op" || !ops.has(t.text)) return left;
      this.next();
      const right = operand();
      left = {
        kind: "arith",
        op: t.text as ArithOp,
        left,
        right,
        span: join(left.span, right.span),
      };
    }
  }

  private parseUnary(): Expr {
    const t = this.peek();
    if (t.kind === "op" && t.text === "-") {
      this.next();
      this.enter(t.start);
      const operand = this.parseUnary();
      this.depth--;
      if (operand.kind === "num") {
        return {
          kind: "num",
          value: -operand.value,
          span: { start: t.start, end: operand.span.end },
        };
      }
      return { kind: "neg", operand, span: { start: t.start, end: operand.span.end } };
    }
    return this.parsePrimary();
  }

  private parsePrimary(): Expr {
    const t = this.peek();
    if (t.kind === "num") {
      this.next();
      return { kind: "num", value: Number(t.text), span: { start: t.start, end: t.end } };
    }
    if (t.kind === "(") {
      this.next();
      this.enter(t.start);
      const inner = this.parseOr();
      this.depth--;
      const close = this.expect(")", "')'");
      return { ...inner, span: { start: t.start, end: close.end } };
    }
    if (t.kind === "ident" && !KEYWORDS.has(t.text)) {
      this.next();
      if (this.peek().kind === "(") {
        this.next();
        this.enter(t.start);
        const args: Expr[] = [];
        if (this.peek().kind !== ")") {
          for (;;) {
            args.push(this.parseOr());
            if (this.peek().kind === ",") {
              this.next();
              continue;
            }
            break;
          }
        }
        this.depth--;
        const close = this.expect(")", "',' or ')'");
        return {
          kind: "call",
          fn: t.text,
          args,
          span: { start: t.start, end: close.end },
          fnSpan: { start: t.start, end: t.end },
        };
      }
      if (this.peek().kind === "." && (t.text === "left" || t.text === "right")) {
        this.next();
        const name = this.expect("ident", "a signal name after '.'");
        return {
          kind: "ref",
          name: name.text,
          side: t.text,
          span: { start: t.start, end: name.end },
        };
      }
      return { kind: "ref", name: t.text, span: { start: t.start, end: t.end } };
    }
    throw new ExpressionSyntaxError(`expected a number, a name or '('${found(t)}`, t.start);
  }
}

function describe(t: Token): string {
  return t.kind === "end" ? "end of expression" : `'${t.text}'`;
}
function found(t: Token): string {
  return `, found ${describe(t)}`;
}
function join(a: Span, b: Span): Span {
  return { start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) };
}

/** Parses an expression; throws ExpressionSyntaxError with the offset of the problem. */
export function parseExpression(src: string): Expr {
  return new Parser(tokenize(src)).parseAll();
}
