/**
 * Layout helpers for the SVG plot, pure and separately tested: round axis ticks, labels placed
 * so that they never overlap, and decimation that keeps a long recording's shape in a few points
 * per pixel.
 */

/**
 * The colours both plots give the same things (the CLI's SVG and the Studio's interactive plot):
 * a phase's band, the service's repetitions, partial repetitions, the moving-average lines.
 */
export const PLOT_COLORS = {
  bands: ["#fde0dd", "#deebf7", "#e5f5e0", "#fff7bc", "#efedf5", "#fee6ce"],
  rep: "#2ca02c",
  partial: "#e6550d",
  moving: "#7b3294",
} as const;

/** Width of a label in pixels, on the safe side (sans-serif is about 0.55 em per character). */
export function textWidth(text: string, fontSize: number): number {
  return text.length * fontSize * 0.62;
}

/** A round step (1, 2 or 5 times a power of ten) near `span / count`. */
export function niceStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5]) if (m * p >= raw) return m * p;
  return 10 * p;
}

/** Round ticks covering [lo, hi]: the axis is widened to the ticks at both ends. */
export function niceTicks(lo: number, hi: number, count = 4): number[] {
  if (!(hi > lo)) {
    const c = Number.isFinite(lo) ? lo : 0;
    return niceTicks(c - 1, c + 1, count);
  }
  const step = niceStep(hi - lo, count);
  const first = Math.floor(lo / step + 1e-9) * step;
  const ticks: number[] = [];
  for (let v = first; v < hi + step - 1e-9 * step; v += step) ticks.push(roundTo(v, step));
  return ticks;
}

/** Strips floating-point noise (0.30000000000000004) to the step's decimals. */
export function roundTo(v: number, step: number): number {
  const decimals = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  return +v.toFixed(Math.min(10, decimals)) || 0;
}

export interface LabelRequest {
  /** Anchor position along the free axis (x for a row of labels). */
  at: number;
  width: number;
}

/**
 * Puts labels centred at `at` into at most `rows` rows so that no two in a row overlap (with a
 * gap); returns each label's row, or -1 when it does not fit anywhere (it is then not drawn).
 */
export function placeInRows(labels: readonly LabelRequest[], rows: number, gap = 4): number[] {
  const rowEnds = Array.from({ length: rows }, () => Number.NEGATIVE_INFINITY);
  const order = labels.map((_, i) => i).sort((a, b) => labels[a].at - labels[b].at);
  const out = labels.map(() => -1);
  for (const i of order) {
    const start = labels[i].at - labels[i].width / 2;
    const row = rowEnds.findIndex((end) => start >= end + gap);
    if (row < 0) continue;
    out[i] = row;
    rowEnds[row] = start + labels[i].width;
  }
  return out;
}

/**
 * Label positions (their centres, from the top) that never overlap: each as near its wanted
 * place as the others allow, `spacing` apart, within [min, max] when they fit there, and below
 * `max` when they do not (the caller makes room, or lets them run over). The CLI's SVG and the
 * Studio's plot both place their threshold labels with it.
 */
export function spreadLabels(
  wanted: readonly number[],
  spacing: number,
  min: number,
  max: number,
): number[] {
  const order = wanted.map((_, i) => i).sort((a, b) => wanted[a] - wanted[b] || a - b);
  const pos = order.map((i) => Math.min(Math.max(wanted[i], min), max));
  const bottom = Math.max(max, min + spacing * (pos.length - 1));
  // Up from the bottom, then down from the top: the second pass keeps the first one's spacing.
  for (let k = pos.length - 1; k >= 0; k--)
    pos[k] = Math.min(pos[k], k === pos.length - 1 ? bottom : pos[k + 1] - spacing);
  for (let k = 0; k < pos.length; k++)
    pos[k] = Math.max(pos[k], k === 0 ? min : pos[k - 1] + spacing);
  const out = new Array<number>(wanted.length);
  order.forEach((i, k) => {
    out[i] = pos[k];
  });
  return out;
}

/**
 * Indices of the points to draw for a series of `n` points whose x goes from 0 to `columns`:
 * per column, the first, minimum, maximum and last point, in time order. A line through them
 * looks the same as through every point, with at most four points per column.
 */
export function decimate(
  n: number,
  column: (i: number) => number,
  value: (i: number) => number,
): number[] {
  const keep: number[] = [];
  let i = 0;
  while (i < n) {
    const c = Math.floor(column(i));
    let j = i;
    let lo = -1;
    let hi = -1;
    for (; j < n && Math.floor(column(j)) === c; j++) {
      const v = value(j);
      if (!Number.isFinite(v)) continue;
      if (lo < 0 || v < value(lo)) lo = j;
      if (hi < 0 || v > value(hi)) hi = j;
    }
    // First and last keep gaps (unknown values) and the joins between columns exact.
    for (const k of [...new Set([i, lo, hi, j - 1])].filter((k) => k >= 0).sort((a, b) => a - b))
      keep.push(k);
    i = j;
  }
  return keep;
}

/** Per pixel column with data: its lowest and highest value, for an envelope. */
export function columnRanges(
  n: number,
  column: (i: number) => number,
  value: (i: number) => number,
): { column: number; min: number; max: number }[] {
  const out: { column: number; min: number; max: number }[] = [];
  for (let i = 0; i < n; i++) {
    const v = value(i);
    if (!Number.isFinite(v)) continue;
    const c = Math.floor(column(i));
    const last = out[out.length - 1];
    if (last && last.column === c) {
      if (v < last.min) last.min = v;
      if (v > last.max) last.max = v;
    } else out.push({ column: c, min: v, max: v });
  }
  return out;
}

/**
 * The smallest step (1, 2, 5, 10, 20, 50...) such that labelling every step-th of `count`
 * evenly spread markers over `width` pixels leaves room for labels `labelWidth` wide.
 */
export function labelStep(count: number, width: number, labelWidth: number): number {
  for (let p = 1; ; p *= 10)
    for (const m of [1, 2, 5]) {
      const step = m * p;
      if ((width / Math.max(1, count)) * step >= labelWidth * 1.5 || step >= count) return step;
    }
}
