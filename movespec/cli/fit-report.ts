/**
 * What `movespec fit` prints: the figures before, after and cross-validated, each free number
 * with the interval it could move in without changing the score, the folds, and every recording.
 */
import type { FitResult, ParameterResult } from "../fit/fit.js";
import type { Score } from "../fit/search.js";

const pct = (n: number, of: number) => (of === 0 ? "-" : `${Math.round((100 * n) / of)}%`);

function figures(s: Score | undefined): string[] {
  if (!s) return ["-", "-", "-"];
  return [
    `${s.exact}/${s.clips} (${pct(s.exact, s.clips)})`,
    `${s.withinOne}/${s.clips} (${pct(s.withinOne, s.clips)})`,
    (s.clips ? s.error / s.clips : 0).toFixed(3),
  ];
}

/** Rows of cells as aligned text: the first `left` columns left-aligned, the rest right-aligned. */
export function columns(rows: string[][], left = 1, indent = ""): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map(
    (r) =>
      indent +
      r
        .map((c, i) => (i < left ? c.padEnd(widths[i]) : c.padStart(widths[i])))
        .join("  ")
        .trimEnd(),
  );
}

/** What the margin of a fitted number says, in words. */
export function marginNote(p: ParameterResult): string {
  const m = p.margin;
  if (m.undecided)
    return "undecided: every value of the range scores the same (fix it, or drop it from fit)";
  const notes: string[] = [];
  if (m.atLowEdge) notes.push("reaches the low end of the range: widen it");
  if (m.atHighEdge) notes.push("reaches the high end of the range: widen it");
  return notes.join("; ");
}

export function fitReport(result: FitResult, file: string, written?: string): string[] {
  const out: string[] = [];
  const groups = new Set(result.recordings.map((r) => r.group ?? ""));
  out.push(
    `${file}: ${result.parameters.length} free number(s), ${result.recordings.length} recording(s)${groups.size > 1 ? ` in ${groups.size} groups` : ""}, ${result.folds.length || "no"} fold(s); ${result.evaluations} MoveSpec(s) tried${result.infeasible ? `, ${result.infeasible} of them did not load` : ""}`,
    "",
  );
  const [b, a, c] = [result.before, result.after, result.crossValidated].map(figures);
  out.push(
    ...columns([
      ["", "as given", "fitted (in-sample)", "cross-validated"],
      ["exact", b[0], a[0], c[0]],
      ["within one", b[1], a[1], c[1]],
      ["mean relative error", b[2], a[2], c[2]],
    ]),
  );
  if (result.parameters.length > 0) {
    out.push(
      "",
      "free numbers (same score: the interval the fitted value could move in without changing the score)",
    );
    out.push(
      ...columns(
        [
          ["name", "range", "as given", "fitted", "same score", "note"],
          ...result.parameters.map((p) => [
            p.name,
            `${p.range[0]} .. ${p.range[1]} by ${p.step}`,
            String(p.before),
            String(p.after),
            p.margin.low === p.margin.high
              ? `${p.margin.low} only`
              : `${p.margin.low} .. ${p.margin.high}`,
            marginNote(p),
          ]),
        ],
        2,
        "  ",
      ).map((l) => l.trimEnd()),
    );
  }
  if (result.folds.length > 0) {
    out.push("", "folds (values chosen on the other folds, then this fold counted with them)");
    out.push(
      ...columns(
        [
          ["fold", "recordings", ...result.parameters.map((p) => p.name), "exact"],
          ...result.folds.map((f) => [
            String(f.fold + 1),
            f.testIds.join(" "),
            ...f.values.map(String),
            `${f.testScore.exact}/${f.testScore.clips}`,
          ]),
        ],
        2,
        "  ",
      ),
    );
  }
  out.push("", "recordings");
  const count = (o: { counted?: number; problem?: string } | undefined) =>
    o === undefined ? "-" : o.counted === undefined ? "miss" : String(o.counted);
  out.push(
    ...columns(
      [
        ["id", "group", "expected", "as given", "fitted", "cross-validated", "fold"],
        ...result.recordings.map((r) => [
          r.id,
          r.group ?? "",
          String(r.expected),
          count(r.before),
          count(r.after),
          count(r.crossValidated),
          r.crossValidated ? String(r.fold + 1) : "",
        ]),
      ],
      2,
      "  ",
    ),
  );
  out.push("");
  const changed = result.parameters.filter((p) => p.after !== p.before).length;
  if (written) out.push(`wrote ${written} (${changed} number(s) changed)`);
  const cv = result.crossValidated;
  out.push(
    cv
      ? `cross-validated: ${cv.exact} of ${cv.clips} exact (${pct(cv.exact, cv.clips)}), ${cv.withinOne} within one: what to expect on recordings nobody fitted it on`
      : "cross-validation needs at least 2 recordings",
  );
  return out;
}
