/**
 * The metric names a PromQL expression reads: every identifier that is not a function, a
 * keyword, a label (inside `{...}`, `by (...)`, `without (...)`, `on (...)`, `ignoring (...)`) or
 * part of a string, a duration or a Grafana variable. Enough for the dashboard's queries; not a
 * PromQL parser.
 */
const KEYWORDS = new Set([
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "and",
  "or",
  "unless",
  "bool",
  "offset",
  "inf",
  "nan",
]);

export function metricNamesOf(expression: string): string[] {
  const stripped = expression
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\$\{?\w+\}?/g, "")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, "");
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*(?=\s*(\(?))/g)) {
    const [name] = match;
    if (match[1] === "(" || KEYWORDS.has(name)) continue;
    names.add(name);
  }
  return [...names];
}

/**
 * What a scraped name answers for: `x_bucket`, `x_sum` and `x_count` are series of the histogram
 * (or summary) `x`.
 */
export function exportedFamily(
  name: string,
  families: ReadonlyMap<string, string>,
): string | undefined {
  if (families.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, "");
  const type = families.get(base);
  if (!type) return undefined;
  if (name.endsWith("_bucket") && type !== "histogram") return undefined;
  return base;
}

/** `# TYPE name type` lines of a Prometheus text exposition. */
export function metricFamilies(exposition: string): Map<string, string> {
  const families = new Map<string, string>();
  for (const match of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm))
    families.set(match[1], match[2]);
  return families;
}
