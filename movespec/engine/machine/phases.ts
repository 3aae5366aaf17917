/**
 * Phases: the current phase is kept while its stay condition holds; otherwise the first phase
 * whose enter condition holds becomes a candidate and is confirmed after its minimum dwell.
 */
import { entering, staying } from "./conditions.js";
import type { FrameFacts } from "./frame-facts.js";
import { EPS, type Machine } from "./machine.js";
import { startRepetition, stepRepetition } from "./repetition.js";
import { envelope, values } from "./report.js";

export function updatePhase(m: Machine, f: FrameFacts): void {
  const s = m.state;
  if (s.phase >= 0 && !staying(m, s.phase, s.phaseSide, f)) {
    const left = s.phase;
    s.phase = -1;
    s.phaseSince = null;
    startRepetition(m, left, f);
  }
  if (s.phase >= 0) return;
  let found = -1;
  let side = 0;
  for (let i = 0; i < m.enter.length; i++) {
    side = entering(m, i, f);
    if (side >= 0) {
      found = i;
      break;
    }
  }
  if (found < 0) {
    s.candidate = -1;
    s.candidateSince = null;
    return;
  }
  if (found !== s.candidate || side !== s.candidateSide || s.candidateSince === null) {
    s.candidate = found;
    s.candidateSide = side;
    s.candidateSince = f.t;
  }
  if (f.t - s.candidateSince >= m.spec.phases[found].minDwell - EPS)
    confirm(m, found, side, s.candidateSince, f);
}

function confirm(m: Machine, i: number, side: number, since: number, f: FrameFacts): void {
  const s = m.state;
  s.phase = i;
  s.phaseSide = side;
  s.phaseSince = since;
  s.candidate = -1;
  s.candidateSince = null;
  const isNew = i !== s.lastPhase;
  if (isNew) {
    const ev: Record<string, unknown> & { type: "phase.entered" } = {
      type: "phase.entered",
      ...envelope(m, f, side),
      phase: m.spec.phases[i].name,
    };
    if (s.lastPhase >= 0) ev.previous = m.spec.phases[s.lastPhase].name;
    ev.since_t = since;
    ev.values = values(m, m.enterSlots[i], side);
    m.emit(ev);
  }
  s.lastPhase = i;
  stepRepetition(m, i, side, since, f);
}
