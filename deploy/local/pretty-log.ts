import type { LogLine } from "./child-process.js";

const COLORS = ["36", "35", "33", "32", "34", "96", "95"];
const RESERVED = new Set(["level", "time", "service", "msg", "pid", "hostname"]);
const LEVEL_COLOR: Record<string, string> = { warn: "33", error: "31", fatal: "31" };

/**
 * Control characters (CR, LF, ESC...) and bidirectional overrides, escaped as `\n`, `\u001b`:
 * logged values can come from clients (a delisting's reason, a name), and raw they could start
 * a forged line, or colour or rewrite the terminal.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

export function printable(text: string): string {
  return text.replace(
    UNPRINTABLE,
    (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Formats a process's JSON log line as one readable, name-prefixed line for a terminal. */
export function createPrettyPrinter(
  useColor: boolean,
): (name: string, line: LogLine | string) => string {
  const assigned = new Map<string, string>();
  const paint = (code: string, text: string) => (useColor ? `\x1b[${code}m${text}\x1b[0m` : text);
  return (name, line) => {
    if (!assigned.has(name)) assigned.set(name, COLORS[assigned.size % COLORS.length]);
    const prefix = paint(assigned.get(name) as string, `[${name}]`.padEnd(18));
    if (typeof line === "string") return `${prefix} ${printable(line)}`;
    const level = String(line.level ?? "info");
    // A dead child's last lines (the launcher quotes them) read best one per line, indented.
    const quoted = Array.isArray(line.last_lines)
      ? line.last_lines.map((text) => `\n${" ".repeat(19)}| ${printable(String(text))}`).join("")
      : "";
    const fields = Object.entries(line)
      .filter(([key]) => !RESERVED.has(key) && key !== "last_lines")
      .map(
        ([key, value]) =>
          `${printable(key)}=${typeof value === "string" ? printable(value) : JSON.stringify(value)}`,
      )
      .join(" ");
    const levelText = LEVEL_COLOR[level] ? paint(LEVEL_COLOR[level], level) : level;
    return `${prefix} ${levelText.padEnd(5)} ${printable(String(line.msg ?? ""))}${fields ? ` ${fields}` : ""}${quoted}`;
  };
}
