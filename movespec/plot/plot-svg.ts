/**
 * Draws a run as an SVG, with no dependencies: a panel per signal over time (its unit on the
 * axis, round ticks), the thresholds the phases and form rules compare it with, the phases as
 * coloured bands, a green line at each counted repetition and an orange one, labelled with its
 * reason, at each partial one. An adaptive signal's thresholds are also drawn where they really
 * are, on its source signal's panel: `lo + threshold x (hi - lo)` from the rest end, moving with
 * the range, over a grey band showing the range itself.
 *
 * Long recordings stay small and readable: each signal is decimated to a few points per pixel
 * column, the phase bands to one run per column, bands and markers are drawn once and reused
 * by every panel, and labels that would overlap are moved (thresholds) or left out with a note
 * (markers; `--from` / `--to` zoom in).
 */
import type { CompiledSpec } from "../compiled-spec.js";
import type { DetectionEvent } from "../engine/events.js";
import type { Expr } from "../expression/ast.js";
import {
  columnRanges,
  decimate,
  labelStep,
  niceTicks,
  PLOT_COLORS,
  placeInRows,
  roundTo,
  spreadLabels,
  textWidth,
} from "./plot-layout.js";
import { signalTitle, unitLabel } from "./units.js";

export interface PlotSample {
  t: number;
  values: Record<string, number>;
  phases: string[];
  /** Per adaptive signal slot (`depth`, `left.depth`): its source's range, from adaptiveRanges(). */
  ranges?: Record<string, { lo: number; hi: number }>;
}

/** An adaptive signal drawn on its source's panel. */
export interface AdaptiveOverlay {
  /** The adaptive slot (a key of PlotSample.ranges). */
  slot: string;
  rest: "low" | "high";
  minRange: number;
  thresholds: Threshold[];
}

export interface PlotOptions {
  title: string;
  /** Time window (seconds of the recording); default: all of it. */
  from?: number;
  to?: number;
}

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2"];
const { bands: BANDS, rep: REP, moving: MOVING, partial: PARTIAL } = PLOT_COLORS;
const FONT = 12;
const LABEL_FONT = 11;

const WIDTH = 1200;
const LEFT = 84;
const RIGHT = 20;
const PLOT_W = WIDTH - LEFT - RIGHT;
/** The top of the lane of marker labels, above the first panel. */
const LANE_TOP = 96;
/** Where the time axis lies, for a viewer that draws over the plot (MoveSpec Studio's cursor). */
export const PLOT_TIME_AXIS = { left: LEFT, width: PLOT_W, top: LANE_TOP } as const;
const PANEL_H = 160;
const PANEL_GAP = 46;
const LANE_ROWS = 3;
const LANE_ROW_H = 14;

function esc(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}
const f1 = (v: number) => v.toFixed(1);

export interface Threshold {
  value: number;
  label: string;
}

/** Thresholds per signal name: every `signal <op> number` in the phases and form rules. */
export function thresholds(spec: CompiledSpec): Map<string, Threshold[]> {
  const out = new Map<string, Threshold[]>();
  const add = (name: string, value: number, label: string) => {
    const list = out.get(name) ?? [];
    const same = list.find((x) => x.value === value);
    if (!same) list.push({ value, label });
    else if (!same.label.split(", ").includes(label)) same.label += `, ${label}`;
    out.set(name, list);
  };
  const visit = (e: Expr, label: string) => {
    if (e.kind === "compare") {
      if (e.left.kind === "ref" && e.right.kind === "num") add(e.left.name, e.right.value, label);
      else if (e.right.kind === "ref" && e.left.kind === "num")
        add(e.right.name, e.left.value, label);
    } else if (e.kind === "and" || e.kind === "or") {
      visit(e.left, label);
      visit(e.right, label);
    } else if (e.kind === "not") visit(e.operand, label);
  };
  for (const p of spec.phases) {
    visit(p.enter, `${p.name} enter`);
    visit(p.stay, `${p.name} exit`);
  }
  for (const rule of spec.form) visit(rule.when, `rule ${rule.id}`);
  return out;
}

/** A run of pixel columns [from, to) in one phase (an index into the MoveSpec's phases). */
interface BandRun {
  from: number;
  to: number;
  phase: number;
}

/** One band per pixel column: the phase the first state machine was in for most of it. */
function bandRuns(
  samples: readonly PlotSample[],
  column: (t: number) => number,
  phaseNames: readonly string[],
): BandRun[] {
  const majority: number[] = [];
  let i = 0;
  while (i < samples.length) {
    const c = Math.floor(column(samples[i].t));
    const votes = new Map<number, number>();
    for (; i < samples.length && Math.floor(column(samples[i].t)) === c; i++) {
      const p = phaseNames.indexOf(samples[i].phases[0] ?? "");
      votes.set(p, (votes.get(p) ?? 0) + 1);
    }
    let best = -1;
    let bestVotes = 0;
    for (const [p, n] of votes) if (n > bestVotes) [best, bestVotes] = [p, n];
    if (c >= 0 && c < PLOT_W) majority[c] = best;
  }
  const runs: BandRun[] = [];
  let previous = -1;
  for (let c = 0; c < PLOT_W; c++) {
    // A column between two frames (a short recording) keeps the phase of the frame before it.
    const p = majority[c] ?? previous;
    previous = p;
    const last = runs[runs.length - 1];
    if (last && last.phase === p && last.to === c) last.to = c + 1;
    else if (p >= 0) runs.push({ from: c, to: c + 1, phase: p });
  }
  return runs;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** What every part of one plot shares: the frames in its window and where a time is drawn. */
interface PlotContext {
  readonly spec: CompiledSpec;
  readonly samples: readonly PlotSample[];
  readonly phaseNames: readonly string[];
  readonly t0: number;
  readonly t1: number;
  /** The pixel column of a time, 0 to PLOT_W - 1. */
  readonly column: (t: number) => number;
  readonly x: (t: number) => number;
}

type RepEvent = Extract<DetectionEvent, { type: "rep.completed" }>;
type PartialEvent = Extract<DetectionEvent, { type: "rep.partial" }>;

/** How crowded the window is, which decides how its parts are drawn. */
interface Density {
  /** Markers closer than 6 px (median): drawn as ticks, threshold labels kept below them. */
  readonly markers: boolean;
  /** Phase bands narrower than 6 px on average: left out. */
  readonly bands: boolean;
  readonly secondsPerPixel: number;
  /** Many frames per pixel: each signal drawn as its range per column. */
  readonly envelope: boolean;
}

export function plotSvg(
  spec: CompiledSpec,
  allSamples: readonly PlotSample[],
  allEvents: readonly DetectionEvent[],
  opts: PlotOptions,
): string {
  const from = opts.from ?? Number.NEGATIVE_INFINITY;
  const to = opts.to ?? Number.POSITIVE_INFINITY;
  const samples = allSamples.filter((s) => s.t >= from && s.t <= to);
  const events = allEvents.filter((e) => e.t >= from && e.t <= to);
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.values)))];
  const t0 = samples[0]?.t ?? 0;
  const t1 = Math.max(samples[samples.length - 1]?.t ?? 1, t0 + 1e-6);
  const column = (t: number) => ((t - t0) / (t1 - t0)) * (PLOT_W - 1);
  const ctx: PlotContext = {
    spec,
    samples,
    phaseNames: spec.phases.map((p) => p.name),
    t0,
    t1,
    column,
    x: (t) => LEFT + column(t),
  };
  const limits = thresholds(spec);
  const overlays = adaptiveOverlays(spec, samples, limits);
  const reps = events.filter((e) => e.type === "rep.completed");
  const partials = events.filter((e) => e.type === "rep.partial");

  const firstPanel = LANE_TOP + LANE_ROWS * LANE_ROW_H + 22;
  const panelTop = (k: number) => firstPanel + k * (PANEL_H + PANEL_GAP);
  const axisY = panelTop(names.length) - PANEL_GAP + 18;
  const parts: string[] = [];
  drawHeading(parts, opts.title, axisY + 36);
  drawLegend(parts, ctx.phaseNames, overlays.size > 0);
  const lane = drawMarkerLabels(parts, ctx, reps, partials);
  const runs = bandRuns(samples, column, ctx.phaseNames);
  const density = densityOf(ctx, [...reps, ...partials], runs);
  drawNotes(parts, ctx, { reps: reps.length, partials: partials.length, ...lane }, density);
  drawShared(parts, ctx, runs, reps, partials, density);
  names.forEach((name, k) => {
    const base = name.includes(".") ? name.split(".")[1] : name;
    drawPanel(parts, ctx, {
      name,
      base,
      top: panelTop(k),
      color: COLORS[k % COLORS.length],
      lines: limits.get(base) ?? [],
      over: overlays.get(name) ?? [],
      density,
    });
  });
  drawTimeAxis(parts, ctx, axisY);
  parts.push("</svg>");
  return parts.join("\n");
}

function drawHeading(parts: string[], title: string, height: number): void {
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="${FONT}">`,
  );
  parts.push(`<rect width="100%" height="100%" fill="white"/>`);
  parts.push(`<text x="${LEFT}" y="24" font-size="16" font-weight="bold">${esc(title)}</text>`);
}

/** One row, each item placed after the previous one's measured width. */
function drawLegend(parts: string[], phaseNames: readonly string[], adaptive: boolean): void {
  let lx = LEFT;
  const legend = (swatch: string, label: string) => {
    parts.push(swatch.replace(/\{x\}/g, f1(lx)).replace(/\{x2\}/g, f1(lx + 18)));
    parts.push(`<text x="${f1(lx + 22)}" y="50">${esc(label)}</text>`);
    lx += 22 + textWidth(label, FONT) + 14;
  };
  phaseNames.forEach((n, i) => {
    legend(
      `<rect x="{x}" y="40" width="18" height="12" fill="${BANDS[i % BANDS.length]}" stroke="#999"/>`,
      `phase ${n}`,
    );
  });
  legend(
    `<line x1="{x}" x2="{x2}" y1="46" y2="46" stroke="${REP}" stroke-width="2"/>`,
    "counted repetition",
  );
  legend(
    `<line x1="{x}" x2="{x2}" y1="46" y2="46" stroke="${PARTIAL}" stroke-width="2" stroke-dasharray="3,3"/>`,
    "partial (reason)",
  );
  legend(
    `<line x1="{x}" x2="{x2}" y1="46" y2="46" stroke="#555" stroke-dasharray="5,4"/>`,
    "threshold",
  );
  if (adaptive)
    legend(
      `<line x1="{x}" x2="{x2}" y1="46" y2="46" stroke="${MOVING}" stroke-dasharray="4,3"/>`,
      "adaptive threshold, in the source's units",
    );
}

/**
 * Marker labels in a lane above the panels: the repetition numbers (every step-th when they are
 * too many to show all), then the partial repetitions' reasons where there is room. Returns the
 * step and how many labels found no room.
 */
function drawMarkerLabels(
  parts: string[],
  ctx: PlotContext,
  reps: readonly RepEvent[],
  partials: readonly PartialEvent[],
): { step: number; hidden: number } {
  const repLabel = (e: RepEvent) =>
    `${e.side && e.side !== "both" ? e.side[0].toUpperCase() : ""}${e.count}`;
  const widest = Math.max(0, ...reps.map((e) => textWidth(repLabel(e), LABEL_FONT)));
  const step = labelStep(reps.length, PLOT_W, widest + 4);
  const markers = [
    ...reps
      .filter((e) => step === 1 || e.count % step === 0)
      .map((e) => ({ t: e.t, text: repLabel(e), color: REP })),
    ...partials.map((e) => ({
      t: e.t,
      text:
        e.reason === "too_fast" || e.reason === "too_slow"
          ? `${e.reason} ${e.duration}s`
          : e.reason,
      color: PARTIAL,
    })),
  ];
  // Centred on its marker, but kept inside the plot's width.
  const labelX = markers.map((m) => {
    const half = textWidth(m.text, LABEL_FONT) / 2;
    return Math.min(Math.max(ctx.x(m.t), LEFT + half), WIDTH - RIGHT - half);
  });
  const rows = placeInRows(
    markers.map((m, i) => ({ at: labelX[i], width: textWidth(m.text, LABEL_FONT) })),
    LANE_ROWS,
  );
  markers.forEach((m, i) => {
    if (rows[i] < 0) return;
    const y = LANE_TOP + (rows[i] + 1) * LANE_ROW_H - 3;
    parts.push(
      `<text class="label" x="${f1(labelX[i])}" y="${y}" text-anchor="middle" font-size="${LABEL_FONT}" fill="${m.color}">${esc(m.text)}</text>`,
    );
  });
  return { step, hidden: rows.filter((r) => r < 0).length };
}

/**
 * Too dense to read one by one: markers become ticks, signals their range per pixel, and the
 * phase bands (noise at that scale) are left out.
 */
function densityOf(
  ctx: PlotContext,
  marked: readonly DetectionEvent[],
  runs: readonly BandRun[],
): Density {
  const xs = marked.map((e) => ctx.x(e.t)).sort((a, b) => a - b);
  const secondsPerPixel = (ctx.t1 - ctx.t0) / PLOT_W;
  return {
    markers: xs.length > 2 && median(xs.slice(1).map((v, i) => v - xs[i])) < 6,
    bands: runs.length > 0 && PLOT_W / runs.length < 6,
    secondsPerPixel,
    envelope: secondsPerPixel > 0.2,
  };
}

/** The line under the legend: what was counted, over which window, and what was simplified. */
function drawNotes(
  parts: string[],
  ctx: PlotContext,
  counts: { reps: number; partials: number; step: number; hidden: number },
  density: Density,
): void {
  const { t0, t1 } = ctx;
  const window =
    ctx.samples.length > 0 ? `${roundTo(t0, 0.01)} s to ${roundTo(t1, 0.01)} s` : "no frames";
  const notes = [
    `${counts.reps} repetition(s) counted, ${counts.partials} partial; ${window}`,
    counts.step > 1 ? `every ${counts.step}th repetition numbered` : "",
    counts.hidden > 0 ? `${counts.hidden} label(s) left out where they would overlap` : "",
    density.envelope
      ? `${roundTo(density.secondsPerPixel, 0.01)} s per pixel: signals drawn as their range`
      : "",
    density.bands ? "phase bands left out" : "",
    counts.hidden > 0 || density.envelope || density.bands || density.markers
      ? "zoom in with --from and --to"
      : "",
  ].filter(Boolean);
  parts.push(`<text x="${LEFT}" y="76" fill="#333">${esc(notes.join("; "))}</text>`);
}

/** Bands and markers are drawn once (y from 0 to 1), a path each, and reused by every panel. */
function drawShared(
  parts: string[],
  ctx: PlotContext,
  runs: readonly BandRun[],
  reps: readonly DetectionEvent[],
  partials: readonly DetectionEvent[],
  density: Density,
): void {
  const markerPath = (list: readonly DetectionEvent[]) =>
    list.map((e) => `M${f1(ctx.x(e.t))} 0v${density.markers ? 0.06 : 1}`).join("");
  parts.push("<defs>");
  parts.push(`<g id="bands">`);
  if (!density.bands)
    ctx.phaseNames.forEach((_, p) => {
      const d = runs
        .filter((r) => r.phase === p)
        .map((r) => `M${LEFT + r.from} 0h${r.to - r.from}v1h${r.from - r.to}z`)
        .join("");
      if (d) parts.push(`<path d="${d}" fill="${BANDS[p % BANDS.length]}"/>`);
    });
  parts.push("</g>");
  parts.push(`<g id="markers">`);
  if (reps.length)
    parts.push(
      `<path d="${markerPath(reps)}" stroke="${REP}" stroke-width="1.5" vector-effect="non-scaling-stroke"/>`,
    );
  if (partials.length)
    parts.push(
      `<path d="${markerPath(partials)}" stroke="${PARTIAL}" stroke-width="1.5" stroke-dasharray="3,3" vector-effect="non-scaling-stroke"/>`,
    );
  parts.push("</g>");
  parts.push("</defs>");
}

interface Panel {
  /** The signal slot: `knees`, `left.knee_angle`. */
  readonly name: string;
  /** Its signal's name, without the side. */
  readonly base: string;
  readonly top: number;
  readonly color: string;
  readonly lines: readonly Threshold[];
  readonly over: readonly AdaptiveOverlay[];
  readonly density: Density;
}

/** One signal's panel: bands, value axis, frame and titles, thresholds, the signal, markers. */
function drawPanel(parts: string[], ctx: PlotContext, panel: Panel): void {
  const { samples } = ctx;
  const { top, lines, over } = panel;
  const values = samples.map((s) => s.values[panel.name]);
  const finite = values.filter((v) => Number.isFinite(v));
  const all = [...finite, ...lines.map((l) => l.value), ...rangeValues(samples, over)];
  const lo = all.length ? all.reduce((a, b) => Math.min(a, b)) : 0;
  const hi = all.length ? all.reduce((a, b) => Math.max(a, b)) : 1;
  const ticks = niceTicks(lo, hi, 4);
  const bottom = ticks[0];
  const span = ticks[ticks.length - 1] - bottom;
  const y = (v: number) => top + PANEL_H - ((v - bottom) / span) * PANEL_H;
  parts.push(
    `<use xlink:href="#bands" href="#bands" transform="translate(0,${top}) scale(1,${PANEL_H})"/>`,
  );
  drawValueAxis(parts, ticks, y);
  drawPanelFrame(parts, ctx.spec, panel);
  // Adaptive thresholds on their source: the range as a band, each threshold a moving line.
  const moving = over.flatMap((o) => drawOverlay(parts, o, samples, ctx.column, y));
  drawThresholds(parts, panel, moving, y);
  drawSignal(parts, ctx, values, y, panel);
  parts.push(
    `<use xlink:href="#markers" href="#markers" transform="translate(0,${top}) scale(1,${PANEL_H})"/>`,
  );
}

/** A panel's round ticks: a light grid line and its number at the left. */
function drawValueAxis(parts: string[], ticks: readonly number[], y: (v: number) => number): void {
  for (const v of ticks) {
    parts.push(
      `<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${f1(y(v))}" y2="${f1(y(v))}" stroke="#e6e6e6"/>`,
    );
    parts.push(
      `<text x="${LEFT - 6}" y="${f1(y(v) + 4)}" text-anchor="end" fill="#555">${v}</text>`,
    );
  }
}

/** A panel's border, its signal's title above it and its unit along its left side. */
function drawPanelFrame(parts: string[], spec: CompiledSpec, panel: Panel): void {
  const { top } = panel;
  parts.push(
    `<rect x="${LEFT}" y="${top}" width="${PLOT_W}" height="${PANEL_H}" fill="none" stroke="#999"/>`,
  );
  parts.push(
    `<text x="${LEFT}" y="${top - 8}" font-weight="bold">${esc(signalTitle(spec, panel.name))}</text>`,
  );
  const unit = unitLabel(spec.signals.find((s) => s.name === panel.base)?.unit, spec.scale);
  if (unit)
    parts.push(
      `<text x="16" y="${top + PANEL_H / 2}" text-anchor="middle" fill="#555" transform="rotate(-90 16 ${top + PANEL_H / 2})">${esc(unit)}</text>`,
    );
}

/**
 * Thresholds: dashed lines; their labels, and the adaptive ones', at the right end, spread so
 * that none overlap.
 */
function drawThresholds(
  parts: string[],
  panel: Panel,
  moving: readonly { label: string; y: number }[],
  y: (v: number) => number,
): void {
  const { top, lines } = panel;
  const labelYs = spreadLabels(
    [...lines.map((l) => y(l.value) - 3), ...moving.map((m) => m.y - 3)],
    LABEL_FONT + 2,
    top + LABEL_FONT + (panel.density.markers ? 12 : 0),
    top + PANEL_H - 3,
  );
  moving.forEach((m, i) => {
    parts.push(
      `<text class="label" x="${WIDTH - RIGHT - 4}" y="${f1(labelYs[lines.length + i])}" text-anchor="end" font-size="${LABEL_FONT}" fill="${MOVING}" stroke="white" stroke-width="3" paint-order="stroke">${esc(m.label)}</text>`,
    );
  });
  lines.forEach((l, i) => {
    parts.push(
      `<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${f1(y(l.value))}" y2="${f1(y(l.value))}" stroke="#555" stroke-dasharray="5,4"/>`,
    );
    parts.push(
      `<text class="label" x="${WIDTH - RIGHT - 4}" y="${f1(labelYs[i])}" text-anchor="end" font-size="${LABEL_FONT}" fill="#333" stroke="white" stroke-width="3" paint-order="stroke">${esc(`${l.label}: ${l.value}`)}</text>`,
    );
  });
}

/**
 * The signal: with many frames per pixel, the range it covered in each column as a filled band;
 * else a line through its decimated points, broken where it is unknown.
 */
function drawSignal(
  parts: string[],
  ctx: PlotContext,
  values: readonly number[],
  y: (v: number) => number,
  panel: Panel,
): void {
  const { samples } = ctx;
  const column = (i: number) => ctx.column(samples[i].t);
  const value = (i: number) => values[i];
  if (panel.density.envelope) {
    const cols = columnRanges(samples.length, column, value);
    const upper = cols.map((c) => `${f1(LEFT + c.column)},${f1(y(c.max))}`);
    const lower = cols.map((c) => `${f1(LEFT + c.column)},${f1(y(c.min) + 0.5)}`).reverse();
    if (cols.length)
      parts.push(
        `<path d="M${[...upper, ...lower].join("L")}Z" fill="${panel.color}" fill-opacity="0.55" stroke="none"/>`,
      );
    return;
  }
  const d: string[] = [];
  let pen = "M";
  for (const i of decimate(samples.length, column, value)) {
    if (!Number.isFinite(values[i])) {
      pen = "M";
      continue;
    }
    d.push(`${pen}${f1(ctx.x(samples[i].t))},${f1(y(values[i]))}`);
    pen = "L";
  }
  parts.push(
    `<path d="${d.join("")}" fill="none" stroke="${panel.color}" stroke-width="1.5" stroke-linejoin="round"/>`,
  );
}

/** Round ticks under the last panel and the axis's title. */
function drawTimeAxis(parts: string[], ctx: PlotContext, axisY: number): void {
  const { t0, t1 } = ctx;
  for (const t of niceTicks(t0, t1, 10).filter((t) => t >= t0 - 1e-9 && t <= t1 + 1e-9)) {
    parts.push(
      `<text x="${f1(ctx.x(t))}" y="${axisY}" text-anchor="middle" fill="#555">${t}</text>`,
    );
  }
  parts.push(
    `<text x="${LEFT + PLOT_W / 2}" y="${axisY + 22}" text-anchor="middle" fill="#333">time (s)</text>`,
  );
}

/** Source panel name -> the adaptive signals to draw on it. */
export function adaptiveOverlays(
  spec: CompiledSpec,
  samples: readonly PlotSample[],
  limits: Map<string, Threshold[]>,
): Map<string, AdaptiveOverlay[]> {
  const out = new Map<string, AdaptiveOverlay[]>();
  const slots = new Set(samples.flatMap((s) => Object.keys(s.ranges ?? {})));
  for (const slot of slots) {
    const [side, name] = slot.includes(".") ? slot.split(".") : [undefined, slot];
    const def = spec.signals.find((d) => d.name === name);
    if (!def?.adaptive || def.expr.kind !== "ref") continue;
    const sourceSide = def.expr.side ?? side;
    const panel = sourceSide ? `${sourceSide}.${def.expr.name}` : def.expr.name;
    const list = out.get(panel) ?? [];
    list.push({
      slot,
      rest: def.adaptive.rest,
      minRange: def.adaptive.minRange,
      thresholds: limits.get(name) ?? [],
    });
    out.set(panel, list);
  }
  return out;
}

/** The ends of the ranges drawn on a panel (so that its axis includes them). */
function rangeValues(samples: readonly PlotSample[], over: readonly AdaptiveOverlay[]): number[] {
  const out: number[] = [];
  for (const o of over)
    for (const s of samples) {
      const r = s.ranges?.[o.slot];
      if (r && Number.isFinite(r.lo) && Number.isFinite(r.hi)) out.push(r.lo, r.hi);
    }
  return out;
}

/**
 * Draws one adaptive signal on its source's panel, a point per pixel column: the range as a grey
 * band and, where the range is wide enough to move anything (`min_range`), each threshold in the
 * source's units. Returns each threshold's label and the y of its last point.
 */
function drawOverlay(
  parts: string[],
  o: AdaptiveOverlay,
  samples: readonly PlotSample[],
  column: (t: number) => number,
  y: (v: number) => number,
): { label: string; y: number }[] {
  const upper: string[] = [];
  const lower: string[] = [];
  const bands: string[] = [];
  const flush = () => {
    if (upper.length > 1) bands.push(`M${upper.join("L")}L${[...lower].reverse().join("L")}Z`);
    upper.length = 0;
    lower.length = 0;
  };
  const lines = o.thresholds.map(() => [] as string[]);
  const pens = o.thresholds.map(() => "M");
  const lastY = o.thresholds.map(() => Number.NaN);
  for (let i = 0; i < samples.length; i++) {
    const c = Math.floor(column(samples[i].t));
    // One point per pixel column: the last sample in it.
    if (i + 1 < samples.length && Math.floor(column(samples[i + 1].t)) === c) continue;
    const r = samples[i].ranges?.[o.slot];
    if (!r || !Number.isFinite(r.lo) || !Number.isFinite(r.hi)) {
      flush();
      pens.fill("M");
      continue;
    }
    const xs = f1(LEFT + c);
    upper.push(`${xs},${f1(y(r.hi))}`);
    lower.push(`${xs},${f1(y(r.lo))}`);
    const range = r.hi - r.lo;
    o.thresholds.forEach((th, k) => {
      if (!(range >= o.minRange)) {
        pens[k] = "M";
        return;
      }
      const v = o.rest === "low" ? r.lo + th.value * range : r.hi - th.value * range;
      lines[k].push(`${pens[k]}${xs},${f1(y(v))}`);
      pens[k] = "L";
      lastY[k] = y(v);
    });
  }
  flush();
  if (bands.length > 0)
    parts.push(`<path d="${bands.join("")}" fill="#000" fill-opacity="0.07" stroke="none"/>`);
  const labels: { label: string; y: number }[] = [];
  o.thresholds.forEach((th, k) => {
    if (lines[k].length === 0) return;
    parts.push(
      `<path d="${lines[k].join("")}" fill="none" stroke="${MOVING}" stroke-width="1" stroke-dasharray="4,3"/>`,
    );
    labels.push({ label: `${th.label}: ${th.value} of the range`, y: lastY[k] });
  });
  return labels;
}
