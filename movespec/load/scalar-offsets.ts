/**
 * Where each character of a flow scalar's value was written in the source, so that an error at
 * a character of an expression points at that character even when YAML folded lines, dropped
 * indentation or decoded escapes on the way to the value.
 *
 * The mapping replays the YAML rules for flow scalars (plain, 'single', "double") and is only
 * trusted when the replay gives back exactly the value the parser produced: anything it does not
 * know leaves the caller to point at the start of the scalar rather than at a wrong place.
 */

export type FlowStyle = "plain" | "single" | "double";

/** One-character escapes of double-quoted scalars and what each stands for. */
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  t: "\t",
  "\t": "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  e: "\x1b",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
  N: "\x85",
  _: "\xa0",
  L: "\u2028",
  P: "\u2029",
};
const HEX_ESCAPES: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 };

/**
 * For each UTF-16 unit of `value`, the source offset of what produced it, plus one more entry
 * for the end of the value; undefined when the replay does not reproduce `value`.
 * `from`..`to` is the scalar's text, without its quotes.
 */
export function scalarOffsets(
  source: string,
  from: number,
  to: number,
  style: FlowStyle,
  value: string,
): number[] | undefined {
  const out: string[] = [];
  const offsets: number[] = [];
  const emit = (text: string, at: number) => {
    for (let k = 0; k < text.length; k++) {
      out.push(text[k]);
      offsets.push(at);
    }
  };
  // Whitespace seen on the current line, kept only if content follows on the same line.
  let spaces: number[] = [];
  // Line breaks since the last content: one folds into a space, n into n - 1 newlines.
  let breaks = 0;
  let breakAt = 0;
  let lineStart = false;
  const fold = () => {
    if (breaks === 1) emit(" ", breakAt);
    else if (breaks > 1) emit("\n".repeat(breaks - 1), breakAt);
    breaks = 0;
  };
  let i = from;
  while (i < to) {
    const c = source[i];
    if (c === "\n" || (c === "\r" && source[i + 1] === "\n")) {
      spaces = [];
      if (breaks === 0) breakAt = i;
      breaks++;
      lineStart = true;
      i += c === "\r" ? 2 : 1;
      continue;
    }
    if (c === " " || c === "\t") {
      if (!lineStart) spaces.push(i);
      i++;
      continue;
    }
    fold();
    lineStart = false;
    for (const at of spaces) emit(source[at], at);
    spaces = [];
    if (style === "double" && c === "\\") {
      const next = source[i + 1];
      if (next === "\n" || (next === "\r" && source[i + 2] === "\n")) {
        // An escaped line break joins the lines with nothing between them.
        i += next === "\r" ? 3 : 2;
        lineStart = true;
        continue;
      }
      if (next !== undefined && Object.hasOwn(SIMPLE_ESCAPES, next)) {
        emit(SIMPLE_ESCAPES[next], i);
        i += 2;
        continue;
      }
      const digits = next === undefined ? undefined : HEX_ESCAPES[next];
      const hex = digits === undefined ? "" : source.slice(i + 2, i + 2 + digits);
      if (digits === undefined || !/^[0-9a-fA-F]+$/.test(hex) || hex.length !== digits)
        return undefined;
      const code = Number.parseInt(hex, 16);
      if (code > 0x10ffff) return undefined;
      emit(String.fromCodePoint(code), i);
      i += 2 + digits;
      continue;
    }
    if (style === "single" && c === "'" && source[i + 1] === "'") {
      emit("'", i);
      i += 2;
      continue;
    }
    emit(c, i);
    i++;
  }
  // In quotes, breaks and spaces before the closing quote are part of the value.
  if (style !== "plain") {
    fold();
    for (const at of spaces) emit(source[at], at);
  }
  if (out.join("") !== value) return undefined;
  offsets.push(to);
  return offsets;
}
