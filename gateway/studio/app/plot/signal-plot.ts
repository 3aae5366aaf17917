/**
 * The run's signals as interactive time series (uPlot: a small canvas chart for time series, MIT,
 * about 50 KB minified, no dependencies): one compact panel per chosen signal, stacked on one
 * shared time axis (shown above the first panel and below the last), phases as coloured bands,
 * thresholds dashed with labels beside the panel that never overlap, adaptive thresholds where
 * they move, a green line per counted repetition (numbered above) and an orange one per partial.
 *
 * Hover shows every shown signal's value at that instant; a drag zooms every panel to the dragged
 * span (double-click or "Whole recording" zooms out); a click moves the time cursor. The plot owns
 * its scales and exposes them (`timeToX`, `view`), and it neither keeps nor decides the time: it
 * sets and follows the shared TimeState (time.ts) through `onTime`, like every time view.
 */

import { PLOT_COLORS } from "@movement-detection/movespec/plot";
import uPlot from "uplot";
import { h } from "../dom.js";
import type { TimeState } from "../time.js";
import { labelRoom, type PlotModel, type SignalSeries, spreadLabels } from "./plot-model.js";

const { bands: BANDS, rep: REP, moving: MOVING, partial: PARTIAL } = PLOT_COLORS;
const LINE = "#1f5fa8";
const THRESHOLD = "#555";
const FONT = "12px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
/** Panel height without its labels' needs, CSS pixels. */
const PANEL_HEIGHT = 72;
const AXIS_HEIGHT = 26;
/** The y axis' width: the same on every panel, so that their time axes line up. */
const Y_AXIS_WIDTH = 56;
/** The threshold labels' column beside the panels. */
const LABELS_WIDTH = 190;
const LABEL_SPACING = 15;
/** A drag narrower than this is a click (moves the cursor), not a zoom. */
const CLICK_SLOP = 4;

export interface SignalPlot {
  readonly element: HTMLElement;
  /** The time cursor's and the window's new state (from the shared TimeState). */
  show(time: TimeState): void;
  /** Chooses which signals are shown (in the model's order). */
  choose(keys: readonly string[]): void;
  /** The x (CSS pixels, from the left of the plot's element) of a time, in the current view. */
  timeToX(t: number): number;
  /** The window shown, in seconds. */
  view(): { from: number; to: number };
  destroy(): void;
}

interface Panel {
  readonly signal: SignalSeries;
  readonly chart: uPlot;
  readonly labels: HTMLElement;
}

export function createSignalPlot(input: {
  model: PlotModel;
  title: string;
  chosen: readonly string[];
  time: TimeState;
  /** The user moved the cursor (a click) or the window (a drag, a double-click). */
  onTime: (change: Partial<TimeState>) => void;
  /** The user chose other signals. */
  onChoose: (keys: string[]) => void;
}): SignalPlot {
  const { model } = input;
  const first = model.times[0] ?? 0;
  const last = Math.max(model.times[model.times.length - 1] ?? 1, first + 1e-6);
  let time = input.time;
  let chosen = [...input.chosen];
  let panels: Panel[] = [];

  const readout = h(
    "p",
    { class: "plot-readout", "aria-live": "off" },
    "Hover over the plot for values.",
  );
  const whole = h("button", { type: "button", class: "small", disabled: true }, "Whole recording");
  whole.addEventListener("click", () => input.onTime({ view: undefined }));
  const picker = signalPicker(model, chosen, (keys) => input.onChoose(keys));
  const pickerSummary = picker.querySelector("summary") as HTMLElement;
  const lane = h("div", { class: "plot-lane", "aria-hidden": "true" });
  const cursor = h("div", { id: "cursor", class: "plot-cursor", "aria-hidden": "true" });
  const stack = h("div", { class: "plot-stack" }, lane);
  const panelsBox = h("div", { class: "plot-panels" });
  stack.append(panelsBox, cursor);
  const element = h(
    "div",
    { class: "signal-plot" },
    h("div", { class: "plot-tools" }, picker, whole, legend(model)),
    readout,
    stack,
  );

  const range = () => time.view ?? { from: first, to: last };
  const width = () => Math.max(200, stack.clientWidth - LABELS_WIDTH);
  /** The over layer's left edge, relative to the stack (the same for every panel). */
  const plotLeft = () => {
    const over = panels[0]?.chart.over;
    if (!over) return 0;
    return over.getBoundingClientRect().left - stack.getBoundingClientRect().left;
  };

  function build() {
    for (const p of panels) p.chart.destroy();
    panels = [];
    panelsBox.replaceChildren();
    const shown = model.signals.filter((s) => chosen.includes(s.key));
    shown.forEach((signal, index) => {
      const labels = h("div", { class: "plot-labels" });
      const chartBox = h("div", { class: "plot-chart" });
      const row = h(
        "div",
        { class: "plot-panel", "data-signal": signal.key },
        h("p", { class: "plot-title" }, signal.title),
        h("div", { class: "plot-row" }, chartBox, labels),
      );
      panelsBox.append(row);
      const chart = new uPlot(
        panelOptions(signal, index === 0, index === shown.length - 1),
        panelData(signal),
        chartBox,
      );
      panels.push({ signal, chart, labels });
      listen(chart);
    });
    element.dataset.panels = String(panels.length);
    place();
  }

  function panelData(signal: SignalSeries): uPlot.AlignedData {
    const data: (number | null)[][] = [model.times, signal.values];
    for (const m of signal.moving) data.push(m.values);
    if (signal.range) data.push(signal.range.hi, signal.range.lo);
    return data as uPlot.AlignedData;
  }

  function panelOptions(signal: SignalSeries, top: boolean, bottom: boolean): uPlot.Options {
    const series: uPlot.Series[] = [
      {},
      { label: signal.key, stroke: LINE, width: 1.5, spanGaps: false },
    ];
    for (const m of signal.moving)
      series.push({ label: m.label, stroke: MOVING, width: 1.2, dash: [6, 4] });
    const bands: uPlot.Band[] = [];
    if (signal.range) {
      const hi = series.length;
      series.push({ label: "range high", stroke: "transparent", width: 0 });
      series.push({ label: "range low", stroke: "transparent", width: 0 });
      bands.push({ series: [hi, hi + 1], fill: "rgba(120,120,120,0.14)" });
    }
    const labelCount = signal.thresholds.length + signal.moving.length;
    const height =
      Math.max(PANEL_HEIGHT, labelRoom(labelCount, LABEL_SPACING, 8)) +
      (top ? AXIS_HEIGHT : 0) +
      (bottom ? AXIS_HEIGHT : 0);
    const seconds = (_: uPlot, ticks: number[]) => ticks.map((t) => `${roundTick(t)} s`);
    return {
      width: width(),
      height,
      legend: { show: false },
      // Fixed, not fitted to each panel's tick labels: every panel's time axis the same length.
      padding: [6, 18, 4, 0],
      cursor: {
        sync: { key: "studio-signals" },
        drag: { x: true, y: false, setScale: false },
        points: { show: false },
      },
      scales: {
        x: { time: false, range: () => [range().from, range().to] },
        y: { range: () => yRange(signal) },
      },
      axes: [
        top ? { side: 0, font: FONT, size: AXIS_HEIGHT, values: seconds, gap: 2 } : { show: false },
        { font: FONT, size: Y_AXIS_WIDTH, gap: 3, ticks: { size: 4 } },
        ...(bottom
          ? [{ scale: "x", side: 2, font: FONT, size: AXIS_HEIGHT, values: seconds, gap: 2 }]
          : []),
      ] as uPlot.Axis[],
      series,
      bands,
      hooks: {
        drawClear: [(u) => drawPhases(u)],
        draw: [(u) => drawMarks(u, signal), ...(top ? [() => place()] : [])],
        setCursor: [(u) => showReadout(u)],
      },
    };
  }

  function yRange(signal: SignalSeries): [number, number] {
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    const take = (v: number | null) => {
      if (v === null) return;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    };
    for (const v of signal.values) take(v);
    for (const t of signal.thresholds) take(t.value);
    for (const m of signal.moving) for (const v of m.values) take(v);
    if (signal.range) for (const v of [...signal.range.lo, ...signal.range.hi]) take(v);
    if (!Number.isFinite(lo)) return [0, 1];
    const pad = Math.max((hi - lo) * 0.06, 1e-3);
    return [lo - pad, hi + pad];
  }

  function drawPhases(u: uPlot) {
    const { ctx, bbox } = u;
    ctx.save();
    for (const run of model.runs) {
      const x0 = Math.max(u.valToPos(run.from, "x", true), bbox.left);
      const x1 = Math.min(u.valToPos(run.to, "x", true), bbox.left + bbox.width);
      if (x1 <= x0) continue;
      ctx.fillStyle = BANDS[run.phase % BANDS.length];
      ctx.fillRect(x0, bbox.top, x1 - x0, bbox.height);
    }
    ctx.restore();
  }

  function drawMarks(u: uPlot, signal: SignalSeries) {
    const { ctx, bbox } = u;
    const ratio = devicePixelRatio || 1;
    ctx.save();
    ctx.beginPath();
    ctx.rect(bbox.left, bbox.top, bbox.width, bbox.height);
    ctx.clip();
    ctx.setLineDash([5 * ratio, 4 * ratio]);
    ctx.lineWidth = ratio;
    ctx.strokeStyle = THRESHOLD;
    for (const t of signal.thresholds) {
      const y = u.valToPos(t.value, "y", true);
      ctx.beginPath();
      ctx.moveTo(bbox.left, y);
      ctx.lineTo(bbox.left + bbox.width, y);
      ctx.stroke();
    }
    const vertical = (t: number, color: string, dash: number[]) => {
      const x = u.valToPos(t, "x", true);
      ctx.setLineDash(dash.map((d) => d * ratio));
      ctx.strokeStyle = color;
      ctx.beginPath();
      ctx.moveTo(x, bbox.top);
      ctx.lineTo(x, bbox.top + bbox.height);
      ctx.stroke();
    };
    ctx.lineWidth = 1.5 * ratio;
    for (const rep of model.reps) vertical(rep.t, REP, []);
    for (const partial of model.partials) vertical(partial.t, PARTIAL, [3, 3]);
    ctx.restore();
  }

  /** Labels, lane marks and the cursor, where the charts now put them. */
  function place() {
    const left = plotLeft();
    for (const panel of panels) placeLabels(panel);
    const { from, to } = range();
    const marks: HTMLElement[] = [];
    const rows: number[] = [];
    const put = (t: number, text: string, kind: string, title: string) => {
      if (t < from || t > to) return;
      const x = left + timeX(t);
      // The lowest row whose last mark is far enough to the left: numbers never overlap.
      let row = rows.findIndex((end) => end < x - 4);
      if (row < 0) row = rows.length;
      const mark = h("span", { class: `plot-mark ${kind}`, title }, text);
      mark.style.left = `${x}px`;
      mark.style.top = `${row * 15}px`;
      rows[row] = x + 8 * text.length + 4;
      marks.push(mark);
    };
    for (const rep of model.reps)
      put(rep.t, String(rep.count), "rep-mark", `repetition ${rep.count} at ${rep.t.toFixed(2)} s`);
    for (const partial of model.partials)
      put(
        partial.t,
        "p",
        "partial-mark",
        `partial repetition (${partial.reason}) at ${partial.t.toFixed(2)} s`,
      );
    lane.replaceChildren(...marks);
    lane.style.height = `${Math.max(1, rows.length) * 15 + 2}px`;
    placeCursor();
  }

  function placeLabels(panel: Panel) {
    const { chart, signal, labels } = panel;
    const overTop = chart.over.offsetTop;
    const height = chart.over.clientHeight;
    const wanted: { text: string; y: number; kind: string }[] = [];
    for (const t of signal.thresholds)
      wanted.push({
        text: `${t.value} ${t.label}`,
        y: chart.valToPos(t.value, "y"),
        kind: "fixed",
      });
    for (const m of signal.moving) {
      const lastValue = [...m.values].reverse().find((v) => v !== null);
      if (lastValue === undefined || lastValue === null) continue;
      wanted.push({ text: m.label, y: chart.valToPos(lastValue, "y"), kind: "moving" });
    }
    const ys = spreadLabels(
      wanted.map((w) => w.y),
      LABEL_SPACING,
      LABEL_SPACING / 2,
      height - LABEL_SPACING / 2,
    );
    labels.replaceChildren(
      ...wanted.map((w, i) => {
        const label = h("span", { class: `threshold-label ${w.kind}`, title: w.text }, w.text);
        label.style.top = `${overTop + ys[i] - LABEL_SPACING / 2}px`;
        return label;
      }),
    );
  }

  function timeX(t: number): number {
    const chart = panels[0]?.chart;
    if (!chart) return 0;
    return chart.valToPos(t, "x");
  }

  function placeCursor() {
    const { from, to } = range();
    const inView = time.cursor >= from && time.cursor <= to && panels.length > 0;
    cursor.hidden = !inView;
    cursor.dataset.t = time.cursor.toFixed(3);
    if (inView) cursor.style.left = `${plotLeft() + timeX(time.cursor)}px`;
  }

  function listen(chart: uPlot) {
    let downX: number | undefined;
    chart.over.addEventListener("mousedown", (event) => {
      downX = event.clientX;
    });
    chart.over.addEventListener("mouseup", (event) => {
      const start = downX;
      downX = undefined;
      if (start === undefined) return;
      const rect = chart.over.getBoundingClientRect();
      if (Math.abs(event.clientX - start) < CLICK_SLOP) {
        // A click: the cursor moves there (and so does the skeleton, and a video would).
        chart.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
        input.onTime({ cursor: chart.posToVal(event.clientX - rect.left, "x") });
        return;
      }
      const a = chart.posToVal(Math.min(start, event.clientX) - rect.left, "x");
      const b = chart.posToVal(Math.max(start, event.clientX) - rect.left, "x");
      chart.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
      const from = Math.max(first, a);
      const to = Math.min(last, b);
      if (to > from) input.onTime({ view: { from, to } });
    });
    chart.over.addEventListener("dblclick", () => input.onTime({ view: undefined }));
    chart.over.addEventListener("mouseleave", () => {
      downX = undefined;
    });
  }

  /** Every shown signal's value at the hovered instant, in one line above the panels. */
  function showReadout(u: uPlot) {
    const i = u.cursor.idx;
    if (i === null || i === undefined || u.cursor.left === undefined || u.cursor.left < 0) return;
    const parts = panels.map((p) => `${p.signal.key} ${formatValue(p.signal.values[i])}`);
    readout.textContent = `t = ${model.times[i].toFixed(2)} s · ${parts.join(" · ")}`;
  }

  const resize = new ResizeObserver(() => {
    for (const p of panels) p.chart.setSize({ width: width(), height: p.chart.height });
    place();
  });
  resize.observe(stack);

  // Built once the element is in the page (its width is known then).
  queueMicrotask(build);

  return {
    element,
    show(next) {
      const zoomed = next.view !== time.view;
      time = next;
      whole.disabled = !time.view;
      element.dataset.from = range().from.toFixed(3);
      element.dataset.to = range().to.toFixed(3);
      if (zoomed) {
        const { from, to } = range();
        for (const p of panels) p.chart.setScale("x", { min: from, max: to });
      }
      place();
    },
    choose(keys) {
      chosen = [...keys];
      pickerSummary.textContent = `Signals (${chosen.length} of ${model.signals.length})`;
      build();
    },
    timeToX: (t) => plotLeft() + timeX(t),
    view: range,
    destroy() {
      resize.disconnect();
      for (const p of panels) p.chart.destroy();
      panels = [];
    },
  };
}

function roundTick(t: number): string {
  return Math.abs(t - Math.round(t)) < 1e-9 ? String(Math.round(t)) : t.toFixed(1);
}

/** A value with as many decimals as its size deserves: 172.4, 12.35, 0.412. */
export function formatValue(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "-";
  const a = Math.abs(v);
  return v.toFixed(a >= 100 ? 1 : a >= 10 ? 2 : 3);
}

function signalPicker(
  model: PlotModel,
  chosen: readonly string[],
  onChoose: (keys: string[]) => void,
): HTMLElement {
  const boxes = model.signals.map((s) => {
    const box = h("input", { type: "checkbox", value: s.key, checked: chosen.includes(s.key) });
    return { box, label: h("label", { class: "pick" }, box, ` ${s.key}`) };
  });
  const summary = h("summary", {}, `Signals (${chosen.length} of ${model.signals.length})`);
  const details = h(
    "details",
    { class: "plot-picker" },
    summary,
    h(
      "div",
      { class: "pick-list", role: "group", "aria-label": "Signals to show" },
      ...boxes.map((b) => b.label),
    ),
  );
  details.addEventListener("change", () =>
    onChoose(boxes.filter((b) => b.box.checked).map((b) => b.box.value)),
  );
  return details;
}

function legend(model: PlotModel): HTMLElement {
  const item = (swatch: string, text: string) =>
    h("span", { class: "legend-item" }, h("span", { class: `swatch ${swatch}` }), text);
  return h(
    "p",
    { class: "plot-legend" },
    ...model.phases.map((p, i) => item(`band band-${i % BANDS.length}`, `phase ${p}`)),
    item("rep", "repetition"),
    item("partial", "partial"),
    item("threshold", "threshold"),
    item("moving", "adaptive threshold"),
  );
}
