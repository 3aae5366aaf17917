/**
 * Draws a run as an SVG, with no dependencies: each signal over time, the thresholds the phases
 * compare it with, the phases as coloured bands, and a marker at each counted repetition. An
 * adaptive signal's thresholds are also drawn where they really are, moving with the range, on
 * its source signal's panel (`lo + threshold x (hi - lo)` from the rest end), over a band showing
 * the range itself.
 */
import type { CompiledSpec } from "../compiled-spec.js";
import type { DetectionEvent } from "../engine/events.js";
import type { Expr } from "../expression/ast.js";

export interface PlotSample {
  t: number;
  values: Record<string, number>;
  phases: string[];
  /** Per adaptive signal slot (`depth`, `left.depth`): its source's range, from adaptiveRanges(). */
  ranges?: Record<string, { lo: number; hi: number }>;
}

/** An adaptive signal drawn on its source's panel. */
interface AdaptiveOverlay {
  /** The adaptive slot (a key of PlotSample.ranges). */
  slot: string;
  rest: "low" | "high";
  minRange: number;
  thresholds: { value: number; label: string }[];
}

const COLORS = [
  "#1f77b4",
  "#d62728",
  "#2ca02c",
  "#9467bd",
  "#ff7f0e",
  "#8c564b",
  "#e377c2",
  "#17becf",
];
const BANDS = ["#fde0dd", "#deebf7", "#e5f5e0", "#fff7bc", "#efedf5", "#fee6ce"];

function esc(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

/** Thresholds per signal name: every `signal <op> number` comparison in the phases. */
function thresholds(spec: CompiledSpec): Map<string, { value: number; label: string }[]> {
  const out = new Map<string, { value: number; label: string }[]>();
  const add = (name: string, value: number, label: string) => {
    const list = out.get(name) ?? [];
    if (!list.some((x) => x.value === value)) list.push({ value, label });
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
  return out;
}

export function plotSvg(
  spec: CompiledSpec,
  samples: PlotSample[],
  events: DetectionEvent[],
  title: string,
): string {
  const width = 1200;
  const left = 70;
  const right = 20;
  const panelHeight = 170;
  const gap = 40;
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.values)))];
  const height = 60 + names.length * (panelHeight + gap) + 40;
  const t0 = samples[0]?.t ?? 0;
  const t1 = samples[samples.length - 1]?.t ?? 1;
  const x = (t: number) => left + ((t - t0) / Math.max(1e-9, t1 - t0)) * (width - left - right);
  const phaseNames = spec.phases.map((p) => p.name);
  const limits = thresholds(spec);
  const overlays = adaptiveOverlays(spec, samples, limits);
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
  );
  parts.push(`<rect width="100%" height="100%" fill="white"/>`);
  parts.push(`<text x="${left}" y="24" font-size="16" font-weight="bold">${esc(title)}</text>`);
  const reps = events.filter((e) => e.type === "rep.completed");
  const partials = events.filter((e) => e.type === "rep.partial");
  parts.push(
    `<text x="${left}" y="44">${reps.length} repetitions counted (green lines), ${partials.length} partial (orange); phases:</text>`,
  );
  phaseNames.forEach((n, i) => {
    const lx = left + 380 + i * 110;
    parts.push(
      `<rect x="${lx}" y="34" width="14" height="12" fill="${BANDS[i % BANDS.length]}" stroke="#999"/>`,
    );
    parts.push(`<text x="${lx + 18}" y="44">${esc(n)}</text>`);
  });

  names.forEach((name, k) => {
    const top = 60 + k * (panelHeight + gap);
    const base = name.includes(".") ? name.split(".")[1] : name;
    const over = overlays.get(name) ?? [];
    const ys = samples.map((s) => s.values[name]).filter((v) => Number.isFinite(v));
    for (const o of over)
      for (const s of samples) {
        const r = s.ranges?.[o.slot];
        if (r && Number.isFinite(r.lo) && Number.isFinite(r.hi)) ys.push(r.lo, r.hi);
      }
    const lines = limits.get(base) ?? [];
    let lo = Math.min(...ys, ...lines.map((l) => l.value));
    let hi = Math.max(...ys, ...lines.map((l) => l.value));
    if (!Number.isFinite(lo) || !Number.isFinite(hi)) {
      lo = 0;
      hi = 1;
    }
    if (hi - lo < 1e-9) {
      hi += 1;
      lo -= 1;
    }
    const pad = (hi - lo) * 0.05;
    lo -= pad;
    hi += pad;
    const y = (v: number) => top + panelHeight - ((v - lo) / (hi - lo)) * panelHeight;
    // Phase bands (first state machine).
    let start = 0;
    for (let i = 1; i <= samples.length; i++) {
      const cur = samples[start].phases[0] ?? "";
      if (i < samples.length && (samples[i].phases[0] ?? "") === cur) continue;
      const pi = phaseNames.indexOf(cur);
      if (pi >= 0) {
        const xa = x(samples[start].t);
        const xb = x(samples[i - 1].t);
        parts.push(
          `<rect x="${xa.toFixed(1)}" y="${top}" width="${Math.max(0.5, xb - xa).toFixed(1)}" height="${panelHeight}" fill="${BANDS[pi % BANDS.length]}"/>`,
        );
      }
      start = i;
    }
    parts.push(
      `<rect x="${left}" y="${top}" width="${width - left - right}" height="${panelHeight}" fill="none" stroke="#999"/>`,
    );
    parts.push(`<text x="${left}" y="${top - 6}" font-weight="bold">${esc(name)}</text>`);
    for (const v of [lo + pad, (lo + hi) / 2, hi - pad]) {
      parts.push(
        `<text x="${left - 6}" y="${y(v) + 4}" text-anchor="end" fill="#555">${+v.toFixed(2)}</text>`,
      );
    }
    for (const l of lines) {
      parts.push(
        `<line x1="${left}" x2="${width - right}" y1="${y(l.value).toFixed(1)}" y2="${y(l.value).toFixed(1)}" stroke="#555" stroke-dasharray="5,4"/>`,
      );
      parts.push(
        `<text x="${width - right - 4}" y="${(y(l.value) - 3).toFixed(1)}" text-anchor="end" fill="#555">${esc(l.label)} ${l.value}</text>`,
      );
    }
    for (const o of over) drawOverlay(parts, o, samples, x, y);
    const d: string[] = [];
    let pen = "M";
    for (const s of samples) {
      const v = s.values[name];
      if (!Number.isFinite(v)) {
        pen = "M";
        continue;
      }
      d.push(`${pen}${x(s.t).toFixed(1)},${y(v).toFixed(1)}`);
      pen = "L";
    }
    parts.push(
      `<path d="${d.join(" ")}" fill="none" stroke="${COLORS[k % COLORS.length]}" stroke-width="1.5"/>`,
    );
    for (const r of reps) {
      parts.push(
        `<line x1="${x(r.t).toFixed(1)}" x2="${x(r.t).toFixed(1)}" y1="${top}" y2="${top + panelHeight}" stroke="#2ca02c" stroke-width="1.5"/>`,
      );
      if (k === 0)
        parts.push(
          `<text x="${x(r.t).toFixed(1)}" y="${top + 12}" text-anchor="middle" fill="#2ca02c" font-weight="bold">${r.count}</text>`,
        );
    }
    for (const r of partials) {
      parts.push(
        `<line x1="${x(r.t).toFixed(1)}" x2="${x(r.t).toFixed(1)}" y1="${top}" y2="${top + panelHeight}" stroke="#ff7f0e" stroke-dasharray="3,3"/>`,
      );
    }
  });
  const axisY = height - 30;
  const step = niceStep((t1 - t0) / 10);
  for (let t = Math.ceil(t0 / step) * step; t <= t1 + 1e-9; t += step) {
    parts.push(
      `<text x="${x(t).toFixed(1)}" y="${axisY}" text-anchor="middle" fill="#555">${+t.toFixed(2)} s</text>`,
    );
  }
  parts.push("</svg>");
  return parts.join("\n");
}

/** Source panel name -> the adaptive signals to draw on it. */
function adaptiveOverlays(
  spec: CompiledSpec,
  samples: PlotSample[],
  limits: Map<string, { value: number; label: string }[]>,
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

/**
 * The range (a grey band) and, where the range is wide enough to move anything, each threshold
 * of the adaptive signal in the source's units (dashed purple lines that move with the range).
 */
function drawOverlay(
  parts: string[],
  o: AdaptiveOverlay,
  samples: PlotSample[],
  x: (t: number) => number,
  y: (v: number) => number,
): void {
  const band: string[] = [];
  const upper: string[] = [];
  const lower: string[] = [];
  const flush = () => {
    if (upper.length > 1) band.push(`M${upper.join(" L")} L${[...lower].reverse().join(" L")} Z`);
    upper.length = 0;
    lower.length = 0;
  };
  const lines = o.thresholds.map(() => [] as string[]);
  const pens = o.thresholds.map(() => "M");
  for (const s of samples) {
    const r = s.ranges?.[o.slot];
    if (!r || !Number.isFinite(r.lo) || !Number.isFinite(r.hi)) {
      flush();
      pens.fill("M");
      continue;
    }
    const xs = x(s.t).toFixed(1);
    upper.push(`${xs},${y(r.hi).toFixed(1)}`);
    lower.push(`${xs},${y(r.lo).toFixed(1)}`);
    const range = r.hi - r.lo;
    o.thresholds.forEach((th, i) => {
      if (!(range >= o.minRange)) {
        pens[i] = "M";
        return;
      }
      const v = o.rest === "low" ? r.lo + th.value * range : r.hi - th.value * range;
      lines[i].push(`${pens[i]}${xs},${y(v).toFixed(1)}`);
      pens[i] = "L";
    });
  }
  flush();
  if (band.length > 0)
    parts.push(`<path d="${band.join(" ")}" fill="#000" fill-opacity="0.07" stroke="none"/>`);
  o.thresholds.forEach((th, i) => {
    if (lines[i].length === 0) return;
    parts.push(
      `<path d="${lines[i].join(" ")}" fill="none" stroke="#7b3294" stroke-width="1" stroke-dasharray="4,3"/>`,
    );
    const last = lines[i][lines[i].length - 1].slice(1).split(",");
    parts.push(
      `<text x="${last[0]}" y="${(Number(last[1]) - 3).toFixed(1)}" text-anchor="end" fill="#7b3294">${esc(`${th.label} ${th.value} of the range`)}</text>`,
    );
  });
}

function niceStep(raw: number): number {
  if (!(raw > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}
