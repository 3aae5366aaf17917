/**
 * The repetition cycle: armed after resting in the start phase, a repetition starts when the
 * body leaves the cycle's first phase, advances as the cycle's phases are entered in order and is
 * counted when the last one is reached within the allowed duration; otherwise it is reported as
 * partial (turned back, timed out, too fast or slow, voided, tracking lost).
 */
import { type RepRecord, r3 } from "../events.js";
import { anySide } from "./conditions.js";
import type { FrameFacts } from "./frame-facts.js";
import { BOTH, EPS, type Machine } from "./machine.js";
import { accumulate, repMetrics, repScore } from "./rep-metrics.js";
import { envelope, eventSide, statValues, values } from "./report.js";

/** Phase `left` was just left: leaving the armed start phase starts a repetition. */
export function startRepetition(m: Machine, left: number, f: FrameFacts): void {
  const rep = m.spec.repetition;
  const s = m.state;
  if (!rep || s.inRep || left !== rep.cycle[0] || !s.armed) return;
  s.inRep = true;
  s.stage = 1;
  s.repStart = f.t;
  s.repSide = s.phaseSide;
  s.stageTimes = [];
  s.phaseTime = m.spec.phases.map(() => 0);
  // The range of motion includes the rest just before the repetition.
  s.stats = s.restStats.map((x) => (x ? [x[0], x[1]] : null));
  s.restStats = s.restStats.map(() => null);
  s.progressExtreme = null;
  s.violations = [];
  s.penalty = 0;
  s.voided = false;
}

/** Phase i was confirmed on `side`: the next phase of the cycle advances the repetition. */
export function stepRepetition(
  m: Machine,
  i: number,
  side: number,
  since: number,
  f: FrameFacts,
): void {
  const rep = m.spec.repetition;
  const s = m.state;
  if (!rep || !s.inRep) return;
  const cycle = rep.cycle;
  if (i === cycle[s.stage]) {
    if (i === rep.target) s.repSide = side;
    s.stageTimes.push(since);
    s.stage++;
    if (s.stage === cycle.length) complete(m, since, f);
    return;
  }
  if (i === cycle[0]) {
    // Back at the start before the cycle completed: a partial repetition, if it went far enough.
    const progress = repProgress(m);
    const reached = s.stage > 1 || (progress !== undefined && progress >= rep.partial.minProgress);
    if (rep.partial.enabled && reached) partial(m, f, "turned_back");
    s.inRep = false;
  }
}

/** Per tracked frame: arming, the time limit and what the repetition accumulates. */
export function updateRepetition(m: Machine, f: FrameFacts): void {
  const rep = m.spec.repetition;
  const s = m.state;
  if (!rep) return;
  if (!s.armed) {
    const inStart = s.phase === rep.start.phase;
    const when = !m.startWhen || anySide(m, m.startWhen.bySide, f, true);
    if (inStart && when) {
      if (s.startSince === null) s.startSince = f.t;
      if (f.t - s.startSince >= rep.start.for - EPS) s.armed = true;
    } else s.startSince = null;
  }
  if (!s.inRep) {
    if (s.phase === rep.cycle[0]) accumulate(m, s.restStats);
    return;
  }
  if (f.t - s.repStart > rep.maxDuration + EPS) {
    s.inRep = false;
    partial(m, f, "timeout", f.t, rep.maxDuration);
    return;
  }
  // Accumulate time per phase and signal extremes.
  if (s.lastUpdate !== null && s.phase >= 0) s.phaseTime[s.phase] += f.t - s.lastUpdate;
  const values = m.program.memory.values;
  accumulate(m, s.stats);
  const p = rep.partial.progress;
  if (p && m.progressIndex >= 0) {
    let side = 0;
    if (m.combine === "auto") side = s.autoSide;
    else if (m.combine === "either")
      side = s.phase >= 0 && s.phaseSide !== BOTH ? s.phaseSide : s.repSide;
    const towardsMin = p.to < p.from;
    for (let k = side === BOTH ? 0 : side; k <= (side === BOTH ? 1 : side); k++) {
      const v = values[m.statSlots.bySide[k][m.progressIndex]];
      if (Number.isNaN(v)) continue;
      const x = s.progressExtreme;
      if (x === null || (towardsMin ? v < x : v > x)) s.progressExtreme = v;
    }
  }
}

/** How far the repetition got towards its progress target, 0..1 (undefined when unmeasured). */
function repProgress(m: Machine): number | undefined {
  const p = m.spec.repetition?.partial.progress;
  const x = m.state.progressExtreme;
  if (!p || x === null) return undefined;
  const v = (p.from - x) / (p.from - p.to);
  return v < 0 ? 0 : Math.min(v, 1);
}

function complete(m: Machine, endT: number, f: FrameFacts): void {
  const rep = m.spec.repetition!;
  const s = m.state;
  const duration = endT - s.repStart;
  s.inRep = false;
  if (s.voided) partial(m, f, "voided", endT);
  else if (duration < rep.minDuration - EPS) partial(m, f, "too_fast", endT, rep.minDuration);
  else if (duration > rep.maxDuration + EPS) partial(m, f, "too_slow", endT, rep.maxDuration);
  else {
    s.count++;
    const side = eventSide(m, s.repSide);
    const metrics = repMetrics(m, endT);
    const score = repScore(m);
    const record: RepRecord = {
      count: s.count,
      start_t: s.repStart,
      end_t: endT,
      score,
      violations: [...s.violations],
      metrics,
    };
    if (side) record.side = side;
    s.reps.push(record);
    m.emit({
      type: "rep.completed",
      ...envelope(m, f, s.repSide),
      count: s.count,
      total: s.count,
      start_t: s.repStart,
      end_t: endT,
      score,
      violations: [...s.violations],
      metrics,
      values: values(m, m.enterSlots[rep.cycle[rep.cycle.length - 1]], s.repSide),
    });
  }
}

/**
 * Reports the repetition in progress as partial; `limit` is the bound of `within` it broke (its
 * duration is in the event too, so an author sees by how much).
 */
export function partial(
  m: Machine,
  f: FrameFacts,
  reason: string,
  endT = f.t,
  limit?: number,
): void {
  const s = m.state;
  const rep = m.spec.repetition!;
  s.partials++;
  const ev: Record<string, unknown> & { type: "rep.partial" } = {
    type: "rep.partial",
    ...envelope(m, f, s.repSide),
    reason,
    start_t: s.repStart,
    duration: r3(endT - s.repStart),
    ...(limit === undefined ? {} : { limit }),
    reached: rep.cycle.slice(1, s.stage).map((i) => m.spec.phases[i].name),
  };
  const progress = repProgress(m);
  if (progress !== undefined) ev.progress = r3(progress);
  if (s.violations.length > 0) ev.violations = [...s.violations];
  ev.values = statValues(m, s.repSide);
  m.emit(ev);
}
