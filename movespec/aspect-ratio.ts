/** Image aspect ratios: `16:9`, `4/3`, `1.78`. Undefined when not a plausible ratio. */
export function parseAspectRatio(value: unknown): number | undefined {
  if (typeof value === "number") return value > 0.1 && value < 10 ? value : undefined;
  if (typeof value !== "string") return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:[:/x]\s*(\d+(?:\.\d+)?))?\s*$/.exec(value);
  if (!m) return undefined;
  const ratio = m[2] === undefined ? Number(m[1]) : Number(m[1]) / Number(m[2]);
  return ratio > 0.1 && ratio < 10 ? ratio : undefined;
}
