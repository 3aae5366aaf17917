/**
 * Writes values into a MoveSpec's source at the numbers its `fit:` block names, leaving every
 * other character as the author wrote it (comments, layout, the fit block itself), so that a
 * fitted MoveSpec reads as the author's file with a few numbers changed.
 */
import type { FitParameter, FitTarget } from "../compiled-spec.js";

const MAX_PLACES = 6;

/** Decimal places `x` needs (at most 6). */
function placesOf(x: number): number {
  for (let d = 0; d < MAX_PLACES; d++) {
    const scaled = x * 10 ** d;
    if (Math.abs(Math.round(scaled) - scaled) < 1e-6) return d;
  }
  return MAX_PLACES;
}

/** Decimal places enough to write every value of a parameter's grid exactly. */
export function placesOfGrid(p: FitParameter): number {
  return Math.max(placesOf(p.range[0]), placesOf(p.step));
}

/** A number as a MoveSpec writes it: at most `places` decimals, no trailing zeros, no -0. */
export function formatNumber(x: number, places: number): string {
  const text = x.toFixed(Math.min(Math.max(places, 0), 9));
  const trimmed = text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
  return trimmed === "-0" ? "0" : trimmed;
}

/** The text a target takes for `value` (seconds for a duration, written in its own unit). */
function targetText(target: FitTarget, value: number, places: number): string {
  if (target.form === "duration") {
    // 0.05 s needs two places; the same 50 ms needs none.
    const shift = Math.round(Math.log10(target.unitSeconds));
    return formatNumber(Math.max(0, value / target.unitSeconds), places + shift);
  }
  const text = formatNumber(value, places);
  // In an expression a negative number after an operator would read `- -0.2`: bracket it.
  return target.form === "expression" && text.startsWith("-") ? `(${text})` : text;
}

/**
 * The source with each parameter set to its value: the first target of a parameter takes the
 * value, the others move by as much as the first did (each keeping the places it was written
 * with, if it had more).
 */
export function withValues(
  source: string,
  parameters: readonly FitParameter[],
  values: readonly number[],
): string {
  const edits: { start: number; end: number; text: string }[] = [];
  parameters.forEach((p, i) => {
    const shift = values[i] - p.targets[0].value;
    const places = placesOfGrid(p);
    for (const target of p.targets) {
      const own = Math.max(places, placesOf(target.value));
      edits.push({
        start: target.start,
        end: target.end,
        text: targetText(target, target.value + shift, own),
      });
    }
  });
  edits.sort((a, b) => b.start - a.start);
  let out = source;
  for (const e of edits) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}
