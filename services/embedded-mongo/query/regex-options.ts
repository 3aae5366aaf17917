/**
 * MongoDB's `$options: "x"` (PCRE's extended mode) for a query's `$regex`: JavaScript has no such
 * flag, so mingo (which builds `new RegExp(pattern, options)`) and the index bounds would refuse
 * or misread the pattern. Filters are rewritten before either sees them: the pattern without its
 * layout, and the options without `x`.
 */
import { isPlainObject } from "../bson-values.js";

/** What PCRE's extended mode skips outside a character class. */
const LAYOUT = new Set([" ", "\t", "\n", "\r", "\f", "\v"]);

/**
 * `source` as extended mode reads it: whitespace and `#` comments (to the end of the line)
 * outside character classes removed; an escaped space or `#` kept as the character itself
 * (as a `\x` escape, which every JavaScript flag set accepts).
 */
export function withoutExtendedLayout(source: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === "\\" && i + 1 < source.length) {
      const escaped = source[++i];
      if (LAYOUT.has(escaped) || escaped === "#") {
        out += `\\x${escaped.charCodeAt(0).toString(16).padStart(2, "0")}`;
      } else {
        out += char + escaped;
      }
      continue;
    }
    if (inClass) {
      if (char === "]") inClass = false;
      out += char;
      continue;
    }
    if (char === "[") {
      inClass = true;
      out += char;
      // A `]` (or `^]`) right after the opening bracket is a member, not the end.
      if (source[i + 1] === "^") out += source[++i];
      if (source[i + 1] === "]") out += source[++i];
      continue;
    }
    if (LAYOUT.has(char)) continue;
    if (char === "#") {
      while (i + 1 < source.length && source[i + 1] !== "\n") i++;
      continue;
    }
    out += char;
  }
  return out;
}

/** `filter` with every `{$regex, $options}` using `x` rewritten; the same object when none does. */
export function withRegexOptionsResolved<T>(filter: T): T {
  return rewrite(filter) as T;
}

function rewrite(value: unknown): unknown {
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = rewrite(value[i]);
      if (next !== value[i]) {
        copy ??= value.slice();
        copy[i] = next;
      }
    }
    return copy ?? value;
  }
  if (!isPlainObject(value)) return value;
  const object = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    const next = rewrite(object[key]);
    if (next !== object[key]) {
      copy ??= { ...object };
      copy[key] = next;
    }
  }
  const target = copy ?? object;
  const options = target.$options;
  if (typeof options === "string" && options.includes("x") && "$regex" in target) {
    const pattern = target.$regex;
    const source =
      pattern instanceof RegExp
        ? pattern.source
        : typeof pattern === "string"
          ? pattern
          : undefined;
    if (source !== undefined) {
      // A regex's own flags (/a b/i with $options "x") count with the options, as in mongod.
      const flags = new Set(`${pattern instanceof RegExp ? pattern.flags : ""}${options}`);
      flags.delete("x");
      return { ...target, $regex: withoutExtendedLayout(source), $options: [...flags].join("") };
    }
  }
  return target;
}
