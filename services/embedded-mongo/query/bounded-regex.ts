/**
 * Regular expressions from clients, run with bounded work. JavaScript's engine backtracks: a
 * pattern such as `^(a+)+$` takes exponential time on a string of a's that does not match, and
 * a running RegExp cannot be interrupted, so one query would hold this single-threaded server
 * for minutes. Every pattern a query, an update's condition or an aggregation expression runs
 * is therefore matched by RE2JS (a port of RE2: time linear in the string), and bounded twice:
 *
 * - before compiling, the pattern may unroll to at most MAX_PATTERN_SIZE positions (counted
 *   repetitions such as `x{999}` expanded): compiling costs a few microseconds per position;
 * - one search may take at most MAX_SEARCH_STEPS steps, counted as the compiled program's size
 *   times the characters searched (RE2's worst case, when its DFA gives up for an NFA).
 *
 * Past either bound the command fails BadValue, naming the bound. Between searches the command's
 * deadline is checked (operation-deadline.ts), so many cheap searches end with MaxTimeMSExpired.
 * Patterns keep JavaScript's syntax (translated to RE2's); what RE2 cannot do in linear time
 * (backreferences, lookahead and lookbehind) is refused by name.
 */
import { RE2JS } from "re2js";
import { badValue } from "../errors.js";
import { currentDeadline } from "../operation-deadline.js";
import { withoutExtendedLayout } from "./regex-options.js";

/** Positions a pattern may unroll to (see unrolledSize). */
export const MAX_PATTERN_SIZE = 10_000;

/** Steps one search may take: program size times characters searched. */
export const MAX_SEARCH_STEPS = 2 ** 24;

/** A search this costly reads the clock before it starts, whatever the tick count. */
const COSTLY_SEARCH_STEPS = 2 ** 16;

/**
 * Compiled patterns kept for the next document (an aggregation expression hands its pattern
 * over for each one). Small: each may hold up to 8 MiB of DFA states.
 */
const CACHE_SIZE = 16;
const cache = new Map<string, RE2JS>();

/** The flags of MongoDB's options (and JavaScript's) RE2 has; `u` is implied, `x` resolved before. */
const FLAGS: Record<string, number> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
};

/** `source` with JavaScript's `flags` as a bounded linear-time pattern (BadValue if refused). */
export function compileBounded(source: string, flags: string): RE2JS {
  const key = `${flags}/${source}`;
  const cached = cache.get(key);
  if (cached) {
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const size = unrolledSize(source);
  if (size > MAX_PATTERN_SIZE) {
    throw badValue(
      `regular expression too large: it unrolls to about ${size} positions, more than the embedded server's ${MAX_PATTERN_SIZE}`,
    );
  }
  currentDeadline().check();
  let flagBits = 0;
  for (const flag of flags) flagBits |= FLAGS[flag] ?? 0;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(source), flagBits);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw badValue(
      `regular expression /${source}/ is not supported by the embedded server, which matches in linear time (RE2: no backreferences, lookahead or lookbehind): ${reason}`,
    );
  }
  cache.set(key, compiled);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return compiled;
}

/** Refuses a search of `length` characters from `from` that could take too many steps. */
function admitSearch(regex: RE2JS, input: string, from: number): void {
  const steps = regex.programSize() * (input.length - from);
  if (steps > MAX_SEARCH_STEPS) {
    throw badValue(
      `regular expression work limit: /${regex.pattern()}/ (${regex.programSize()} instructions) over ${input.length - from} characters is ${steps} steps, more than the embedded server's ${MAX_SEARCH_STEPS} per search`,
    );
  }
  if (steps > COSTLY_SEARCH_STEPS) currentDeadline().check();
  else currentDeadline().tick();
}

/** Whether `regex` matches anywhere in `input` (RegExp.prototype.test). */
export function boundedTest(regex: RE2JS, input: string): boolean {
  admitSearch(regex, input, 0);
  return regex.test(input);
}

export interface RegexMatch {
  match: string;
  /** UTF-16 index of the match in the input, as mingo reports it. */
  idx: number;
  /** Each capture group's text, null when it took no part. */
  captures: Array<string | null>;
}

/** The first match of `regex` in `input`, or all of them (left to right, not overlapping). */
export function boundedMatches(regex: RE2JS, input: string, all: boolean): RegexMatch[] {
  const matcher = regex.matcher(input);
  const matches: RegexMatch[] = [];
  let from = 0;
  for (;;) {
    admitSearch(regex, input, from);
    if (!matcher.find()) break;
    const captures: Array<string | null> = [];
    for (let group = 1; group <= matcher.groupCount(); group++) {
      captures.push(matcher.group(group));
    }
    matches.push({ match: matcher.group() ?? "", idx: matcher.start(), captures });
    if (!all) break;
    from = matcher.end();
  }
  return matches;
}

/**
 * A RegExp whose matching is bounded: what mingo's operators receive in place of a client's
 * RegExp (`$in: [/a/]`, `$all`, `$not`), since they call `test` and `exec` on it.
 */
export class BoundedRegExp extends RegExp {
  readonly linear: RE2JS;

  constructor(regex: RegExp) {
    super(regex.source, regex.flags);
    this.linear = compileBounded(regex.source, regex.flags);
  }

  override test(input: string): boolean {
    return boundedTest(this.linear, String(input));
  }

  override exec(input: string): RegExpExecArray | null {
    const text = String(input);
    const [first] = boundedMatches(this.linear, text, false);
    if (!first) return null;
    const result = [
      first.match,
      ...first.captures.map((c) => c ?? undefined),
    ] as unknown as RegExpExecArray;
    return Object.assign(result, { index: first.idx, input: text, groups: undefined });
  }
}

export function bounded(regex: RegExp): BoundedRegExp {
  return regex instanceof BoundedRegExp ? regex : new BoundedRegExp(regex);
}

/** A pattern given as a string or a RegExp, with MongoDB's options (`x` resolved here). */
export function compileOperand(pattern: unknown, options: unknown, operator: string): RE2JS {
  if (options !== undefined && options !== null && typeof options !== "string") {
    throw badValue(`${operator} needs 'options' to be of type string`);
  }
  let source: string;
  let flags = typeof options === "string" ? options : "";
  if (pattern instanceof RegExp) {
    source = pattern.source;
    flags = `${pattern.flags}${flags}`;
  } else if (typeof pattern === "string") {
    source = pattern;
  } else {
    throw badValue(`${operator} needs 'regex' to be of type string or regex`);
  }
  const unknown = [...flags].find((flag) => !"imsux".includes(flag));
  if (unknown !== undefined)
    throw badValue(`${operator}: invalid flag in regex options: ${unknown}`);
  if (flags.includes("x")) source = withoutExtendedLayout(source);
  return compileBounded(source, [...new Set(flags.replace("x", ""))].join(""));
}

/** `{n}`, `{n,}` or `{n,m}` at a position (sticky). */
const COUNTED_REPETITION = /\{(\d+)(?:,(\d*))?\}/y;

/**
 * An estimate of the positions RE2 compiles `source` (JavaScript syntax) to, from above: each
 * atom is one, a group adds its capture, and a counted repetition copies what it repeats
 * (nested ones multiply). Only the order of magnitude matters: it keeps `(?:x{999}){1}...` from compiling
 * to millions of instructions.
 */
export function unrolledSize(source: string): number {
  const enclosing: number[] = [];
  let size = 0;
  let last = 0;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === "\\") {
      i++;
      // \p{...}, \u{...}, \k<...>: one position, braces included.
      const close = source[i + 1] === "{" ? "}" : source[i + 1] === "<" ? ">" : undefined;
      if (close !== undefined && "pPuk".includes(source[i])) {
        const end = source.indexOf(close, i + 2);
        if (end !== -1) i = end;
      }
      size += 1;
      last = 1;
    } else if (char === "[") {
      i = classEnd(source, i);
      size += 1;
      last = 1;
    } else if (char === "(") {
      enclosing.push(size);
      size = 0;
      last = 0;
    } else if (char === ")") {
      const group = size + 2;
      size = (enclosing.pop() ?? 0) + group;
      last = group;
    } else if (char === "|") {
      size += 1;
      last = 0;
    } else if (char === "*" || char === "+" || char === "?") {
      size += 1;
    } else {
      const counted = char === "{" ? countedAt(source, i) : null;
      if (counted) {
        const [text, lowText, highText] = counted;
        const low = Number(lowText);
        const high = highText === undefined ? low : highText === "" ? low + 1 : Number(highText);
        // The atom once more per copy, plus a branch per optional copy.
        size += last * Math.max(high - 1, 0) + (high - low);
        last *= Math.max(high, 1);
        i += text.length - 1;
      } else {
        size += 1;
        last = 1;
      }
    }
  }
  return size + enclosing.reduce((sum, outer) => sum + outer, 0);
}

function countedAt(source: string, at: number): RegExpExecArray | null {
  COUNTED_REPETITION.lastIndex = at;
  return COUNTED_REPETITION.exec(source);
}

/** The index of the `]` closing the class opened at `open` (the last index if unclosed). */
function classEnd(source: string, open: number): number {
  for (let i = open + 1; i < source.length; i++) {
    if (source[i] === "\\") i++;
    else if (source[i] === "]") return i;
  }
  return source.length - 1;
}
