/**
 * What the interactive plot shows, computed from a run without any DOM (test/studio/plot-model.test.ts
 * runs it in Node): one series per signal over the frames' times, the thresholds the phases and
 * form rules compare each with (the CLI plot's own reading of the MoveSpec, movespec/plot/plot-svg.ts),
 * an adaptive signal's moving thresholds and range on its source's panel, the phases as runs of
 * time, the service's repetitions and partial ones, and which signals to show at first.
 */

import type { CompiledSpec } from "@movement-detection/movespec";
import { forEachRef } from "@movement-detection/movespec";
import type { DetectionEvent } from "@movement-detection/movespec/engine";
import {
  adaptiveOverlays,
  type PlotSample,
  signalTitle,
  type Threshold,
  thresholds,
} from "@movement-detection/movespec/plot";

/** The threshold labels are placed as the CLI's SVG places them. */
export { spreadLabels } from "@movement-detection/movespec/plot";

export interface MovingThreshold {
  readonly label: string;
  /** Per frame, in the panel's units (null before the range is known). */
  readonly values: (number | null)[];
}

export interface SignalSeries {
  /** The slot: `depth`, `left.knee_angle`. */
  readonly key: string;
  /** With its unit: `knees (degrees)`. */
  readonly title: string;
  readonly values: (number | null)[];
  readonly thresholds: readonly Threshold[];
  readonly moving: readonly MovingThreshold[];
  /** An adaptive signal's range on this (its source's) panel. */
  readonly range?: { readonly lo: (number | null)[]; readonly hi: (number | null)[] };
}

export interface PhaseRun {
  readonly from: number;
  readonly to: number;
  /** Index into `phases`. */
  readonly phase: number;
}

export interface PlotModel {
  readonly times: number[];
  readonly signals: readonly SignalSeries[];
  readonly phases: readonly string[];
  readonly runs: readonly PhaseRun[];
  readonly reps: readonly { readonly t: number; readonly count: number }[];
  readonly partials: readonly { readonly t: number; readonly reason: string }[];
  /** The signals shown at first: those the phases and form rules compare, and their sources. */
  readonly defaults: readonly string[];
}

const finite = (v: number | undefined): number | null =>
  v !== undefined && Number.isFinite(v) ? v : null;

export function plotModel(
  spec: CompiledSpec,
  samples: readonly PlotSample[],
  events: readonly DetectionEvent[],
): PlotModel {
  const times = samples.map((s) => s.t);
  const keys = [...new Set(samples.flatMap((s) => Object.keys(s.values)))];
  const limits = thresholds(spec);
  const overlays = adaptiveOverlays(spec, samples, limits);
  const signals = keys.map((key): SignalSeries => {
    const base = baseName(key);
    const over = overlays.get(key) ?? [];
    const moving: MovingThreshold[] = [];
    let range: SignalSeries["range"];
    for (const o of over) {
      const lo = samples.map((s) => finite(s.ranges?.[o.slot]?.lo));
      const hi = samples.map((s) => finite(s.ranges?.[o.slot]?.hi));
      range ??= { lo, hi };
      for (const threshold of o.thresholds) {
        moving.push({
          label: `${o.slot} ${threshold.value} (${threshold.label})`,
          values: samples.map((_, i) => {
            const l = lo[i];
            const h = hi[i];
            if (l === null || h === null || h - l < o.minRange) return null;
            // From the rest end: 0 is at rest, 1 the far end of the range.
            return o.rest === "low" ? l + threshold.value * (h - l) : h - threshold.value * (h - l);
          }),
        });
      }
    }
    return {
      key,
      title: signalTitle(spec, key),
      values: samples.map((s) => finite(s.values[key])),
      thresholds: limits.get(base) ?? [],
      moving,
      range,
    };
  });
  const phases = spec.phases.map((p) => p.name);
  return {
    times,
    signals,
    phases,
    runs: phaseRuns(samples, phases),
    reps: events.flatMap((e) => (e.type === "rep.completed" ? [{ t: e.t, count: e.total }] : [])),
    partials: events.flatMap((e) =>
      e.type === "rep.partial" ? [{ t: e.t, reason: e.reason.replace(/_/g, " ") }] : [],
    ),
    defaults: defaultSignals(spec, keys),
  };
}

function baseName(key: string): string {
  return key.includes(".") ? key.slice(key.indexOf(".") + 1) : key;
}

/** Runs of the first state machine's phase, each from its first frame to the next run's. */
export function phaseRuns(samples: readonly PlotSample[], phases: readonly string[]): PhaseRun[] {
  const runs: PhaseRun[] = [];
  let current: { from: number; phase: number } | undefined;
  for (const sample of samples) {
    const phase = phases.indexOf(sample.phases[0] ?? "");
    if (current && phase !== current.phase) {
      runs.push({ from: current.from, to: sample.t, phase: current.phase });
      current = undefined;
    }
    if (!current && phase >= 0) current = { from: sample.t, phase };
  }
  const last = samples[samples.length - 1];
  if (current && last && last.t > current.from) runs.push({ ...current, to: last.t });
  return runs;
}

/**
 * What the phases and form rules compare (the signals that decide the count and the warnings),
 * plus the source of each adaptive one among them (where its moving thresholds are drawn).
 * Every slot of such a signal (`left.x`, `right.x`) is shown; the rest are a click away.
 */
export function defaultSignals(spec: CompiledSpec, keys: readonly string[]): string[] {
  const wanted = new Set<string>();
  const want = (ref: { name: string }) => wanted.add(ref.name);
  for (const p of spec.phases) {
    forEachRef(p.enter, want);
    forEachRef(p.stay, want);
  }
  for (const rule of spec.form) forEachRef(rule.when, want);
  for (const name of [...wanted]) {
    const def = spec.signals.find((d) => d.name === name);
    if (def?.adaptive && def.expr.kind === "ref") wanted.add(def.expr.name);
  }
  const chosen = keys.filter((k) => wanted.has(baseName(k)));
  return chosen.length > 0 ? chosen : keys.slice(0, 4);
}

/** The height labels need, `spacing` apart, with `padding` above and below. */
export function labelRoom(count: number, spacing: number, padding: number): number {
  return count === 0 ? 0 : (count - 1) * spacing + 2 * padding;
}
