import type { LogLine } from "./child-process.js";

const COLORS = ["36", "35", "33", "32", "34", "96", "95"];
const RESERVED = new Set(["level", "time", "service", "msg", "pid", "hostname"]);
const LEVEL_COLOR: Record<string, string> = { warn: "33", error: "31", fatal: "31" };

/** Formats a process's JSON log line as one readable, name-prefixed line for a terminal. */
export function createPrettyPrinter(
  useColor: boolean,
): (name: string, line: LogLine | string) => string {
  const assigned = new Map<string, string>();
  const paint = (code: string, text: string) => (useColor ? `\x1b[${code}m${text}\x1b[0m` : text);
  return (name, line) => {
    if (!assigned.has(name)) assigned.set(name, COLORS[assigned.size % COLORS.length]);
    const prefix = paint(assigned.get(name) as string, `[${name}]`.padEnd(18));
    if (typeof line === "string") return `${prefix} ${line}`;
    const level = String(line.level ?? "info");
    // A dead child's last lines (the launcher quotes them) read best one per line, indented.
    const quoted = Array.isArray(line.last_lines)
      ? line.last_lines.map((text) => `\n${" ".repeat(19)}| ${String(text)}`).join("")
      : "";
    const fields = Object.entries(line)
      .filter(([key]) => !RESERVED.has(key) && key !== "last_lines")
      .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
      .join(" ");
    const levelText = LEVEL_COLOR[level] ? paint(LEVEL_COLOR[level], level) : level;
    return `${prefix} ${levelText.padEnd(5)} ${line.msg ?? ""}${fields ? ` ${fields}` : ""}${quoted}`;
  };
}
