/**
 * What a repetition measures: signal extremes (min, max, range of motion), tempo, time per phase
 * and the 0-100 score.
 */
import { type RepRecord, r3, type SignalStats } from "../events.js";
import type { Machine } from "./machine.js";
import { reportSide } from "./report.js";

/** Widens per-signal [min, max] pairs with this frame's values. */
export function accumulate(m: Machine, stats: ([number, number] | null)[]): void {
  const values = m.program.memory.values;
  const n = m.statNames.length;
  for (let k = 0; k < m.sides.length; k++) {
    const slots = m.statSlots.bySide[k];
    for (let j = 0; j < n; j++) {
      const v = values[slots[j]];
      if (Number.isNaN(v)) continue;
      const st = stats[k * n + j];
      if (st === null) stats[k * n + j] = [v, v];
      else {
        if (v < st[0]) st[0] = v;
        if (v > st[1]) st[1] = v;
      }
    }
  }
}

export function repMetrics(m: Machine, endT: number): RepRecord["metrics"] {
  const s = m.state;
  const spec = m.spec;
  const rep = spec.repetition!;
  const tempo: number[] = [];
  let prev = s.repStart;
  for (const t of s.stageTimes) {
    tempo.push(r3(t - prev));
    prev = t;
  }
  const phaseTime: Record<string, number> = {};
  for (const i of new Set(rep.cycle)) phaseTime[spec.phases[i].name] = r3(s.phaseTime[i]);
  const signals: Record<string, SignalStats> = {};
  const n = m.statNames.length;
  const report = (k: number, prefix: string) => {
    for (let j = 0; j < spec.metrics.length; j++) {
      const st = s.stats[k * n + m.statNames.indexOf(spec.metrics[j])];
      // A metric that names its side is reported under that name, once.
      const name = spec.metrics[j].includes(".") ? spec.metrics[j] : prefix + spec.metrics[j];
      if (st)
        signals[name] = {
          min: r3(st[0]),
          max: r3(st[1]),
          range: r3(st[1] - st[0]),
        };
    }
  };
  if (m.combine === "together") {
    for (let k = 0; k < m.sides.length; k++) report(k, `${m.sides[k]}.`);
  } else report(reportSide(m, s.repSide), "");
  return { duration: r3(endT - s.repStart), tempo, phase_time: phaseTime, signals };
}

/** 100, minus the penalties of the rules broken, minus the depth shortfall; 0..100, rounded. */
export function repScore(m: Machine): number {
  const s = m.state;
  let score = 100 - s.penalty;
  const depth = m.spec.scoring.depth;
  if (depth && m.depthIndex >= 0) {
    const n = m.statNames.length;
    const st = s.stats[reportSide(m, s.repSide) * n + m.depthIndex];
    if (st) {
      const extreme = depth.to < depth.from ? st[0] : st[1];
      let frac = (depth.from - extreme) / (depth.from - depth.to);
      frac = frac < 0 ? 0 : Math.min(frac, 1);
      score -= depth.weight * (1 - frac);
    }
  }
  return Math.round(score < 0 ? 0 : Math.min(score, 100));
}
