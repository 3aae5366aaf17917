/** Durations in a MoveSpec: a number of seconds, or a string such as `0.5s`, `500ms`, `2 min`. */

const UNITS: Record<string, number> = { "": 1, s: 1, sec: 1, ms: 0.001, min: 60 };

/** Seconds, or undefined when the value is not a duration. Negative values are rejected. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== "string" || value.length > 32) return undefined;
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|sec|min)?\s*$/.exec(value);
  if (!m) return undefined;
  const seconds = Number(m[1]) * UNITS[m[2] ?? ""];
  return Number.isFinite(seconds) ? seconds : undefined;
}
