/**
 * `run --stats`: each signal's minimum, median and maximum in each phase (and between phases),
 * over the frames of a recording: what an author picks thresholds from.
 */
import type { CompiledSpec } from "../compiled-spec.js";
import { formatValue, signalTitle } from "../plot/units.js";
import { sidesPlan } from "../sides.js";

export const BETWEEN = "(between phases)";
export const ALL = "(all frames)";

export interface Summary {
  min: number;
  median: number;
  max: number;
  frames: number;
}

export interface StatsCollector {
  /** One frame: the engine's signalValues() and currentPhases(). */
  add(values: Record<string, number>, phases: readonly string[]): void;
  /** signal slot -> phase (or BETWEEN, ALL) -> summary, phases in the spec's order. */
  result(): Record<string, Record<string, Summary>>;
}

export function createStats(spec: CompiledSpec): StatsCollector {
  // With a machine per side (sides: both), a left.* signal is judged by the left machine's phase.
  const machines = sidesPlan(spec.sides).machines;
  const machineOf = (slot: string): number => {
    if (machines.length < 2 || !slot.includes(".")) return 0;
    const i = machines.findIndex((m) => m.sides[0] === slot.split(".")[0]);
    return i < 0 ? 0 : i;
  };
  const data = new Map<string, Map<string, number[]>>();
  return {
    add(values, phases) {
      for (const [slot, v] of Object.entries(values)) {
        if (!Number.isFinite(v)) continue;
        const byPhase = data.get(slot) ?? new Map<string, number[]>();
        data.set(slot, byPhase);
        const phase = phases[machineOf(slot)] || BETWEEN;
        for (const key of [phase, ALL]) {
          const list = byPhase.get(key);
          if (list) list.push(v);
          else byPhase.set(key, [v]);
        }
      }
    },
    result() {
      const order = [...spec.phases.map((p) => p.name), BETWEEN, ALL];
      const out: Record<string, Record<string, Summary>> = {};
      for (const [slot, byPhase] of data) {
        out[slot] = {};
        for (const phase of order) {
          const list = byPhase.get(phase);
          if (list) out[slot][phase] = summarise(list);
        }
      }
      return out;
    },
  };
}

function summarise(values: number[]): Summary {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  const median = n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { min: r(sorted[0]), median: r(median), max: r(sorted[n - 1]), frames: n };
}

/** The stats as an aligned text table, a block per signal. */
export function statsTable(
  spec: CompiledSpec,
  stats: Record<string, Record<string, Summary>>,
): string[] {
  const lines = ["signal values per phase (min / median / max over the frames in each phase):"];
  const labelWidth =
    1 +
    Math.max(
      18,
      ...Object.keys(stats).map((slot) => signalTitle(spec, slot).length),
      ...Object.values(stats).flatMap((byPhase) => Object.keys(byPhase).map((p) => p.length + 2)),
    );
  const num = (s: string) => s.padStart(9);
  for (const [slot, byPhase] of Object.entries(stats)) {
    lines.push(
      `${signalTitle(spec, slot).padEnd(labelWidth)}${num("min")}${num("median")}${num("max")}${num("frames")}`,
    );
    for (const [phase, s] of Object.entries(byPhase)) {
      lines.push(
        `${`  ${phase}`.padEnd(labelWidth)}${num(formatValue(s.min))}${num(formatValue(s.median))}${num(formatValue(s.max))}${num(String(s.frames))}`,
      );
    }
  }
  return lines;
}
