/**
 * The hold timer: a hold starts when its phase is entered, reports progress, completes at its
 * target and is broken when the body stays out of the phase (or untracked) past the grace time.
 */
import { type HoldRecord, r3 } from "../events.js";
import type { FrameFacts } from "./frame-facts.js";
import { EPS, type Machine } from "./machine.js";
import { envelope, eventSide } from "./report.js";

export function updateHold(m: Machine, f: FrameFacts, tracked: boolean): void {
  const hold = m.spec.hold;
  if (!hold) return;
  const s = m.state;
  const inPhase = tracked && s.phase === hold.phase;
  const phase = m.spec.phases[hold.phase].name;
  if (!s.holdActive) {
    if (!inPhase) return;
    s.holdActive = true;
    s.holdCompleted = false;
    // From when the phase was entered, unless the phase outlasted an earlier, broken hold.
    const since = s.phaseSince;
    s.holdStart =
      since !== null && (s.holdEndedAt === null || since >= s.holdEndedAt) ? since : f.t;
    s.holdLastIn = f.t;
    s.holdNextProgress = hold.progressEvery;
    m.emit({
      type: "hold.started",
      ...envelope(m, f, s.phaseSide),
      phase,
      since_t: s.holdStart,
      target: hold.target,
    });
  }
  if (inPhase) {
    s.holdLastIn = f.t;
    const elapsed = f.t - s.holdStart;
    if (s.holdCompleted) return;
    if (elapsed >= hold.target - EPS) {
      s.holdCompleted = true;
      m.emit({
        type: "hold.completed",
        ...envelope(m, f, s.phaseSide),
        phase,
        elapsed: r3(elapsed),
      });
      return;
    }
    if (hold.progressEvery > 0 && elapsed >= s.holdNextProgress - EPS) {
      s.holdNextProgress =
        (Math.floor(elapsed / hold.progressEvery + EPS) + 1) * hold.progressEvery;
      m.emit({
        type: "hold.progress",
        ...envelope(m, f, s.phaseSide),
        phase,
        elapsed: r3(elapsed),
        remaining: r3(hold.target - elapsed),
      });
    }
    return;
  }
  if (f.t - s.holdLastIn <= hold.grace + EPS) return;
  const elapsed = r3(s.holdLastIn - s.holdStart);
  if (!s.holdCompleted) {
    m.emit({
      type: "hold.broken",
      ...envelope(m, f, s.phaseSide),
      phase,
      elapsed,
      reason: tracked ? "left_phase" : "tracking_lost",
    });
  }
  const record: HoldRecord = { phase, start_t: s.holdStart, elapsed, completed: s.holdCompleted };
  const side = eventSide(m, s.phaseSide);
  if (side) record.side = side;
  s.holds.push(record);
  s.holdActive = false;
  s.holdEndedAt = f.t;
}

/** The open hold at the end of a session, if any. */
export function openHold(m: Machine, lastT: number): HoldRecord | undefined {
  const s = m.state;
  if (!m.spec.hold || !s.holdActive) return undefined;
  const record: HoldRecord = {
    phase: m.spec.phases[m.spec.hold.phase].name,
    start_t: s.holdStart,
    elapsed: r3(Math.min(lastT, s.holdLastIn) - s.holdStart),
    completed: s.holdCompleted,
  };
  const side = eventSide(m, s.phaseSide);
  if (side) record.side = side;
  return record;
}
