/**
 * `sides: auto`: read the better-visible side. Start on it, switch when the other side is
 * clearly more visible for a while (never mid-repetition), and at once when the current side is
 * lost (its gate failing for `tracking.lost_after`) while the other is tracked.
 */
import type { FrameFacts } from "./frame-facts.js";
import { EPS, type Machine } from "./machine.js";

/** How much more visible (mean visibility of the gate landmarks) the other side must be. */
const AUTO_MARGIN = 0.15;
/** For how long, in seconds. */
const AUTO_AFTER = 0.5;

export function chooseAutoSide(m: Machine, f: FrameFacts): void {
  const s = m.state;
  const cur = s.autoSide;
  const other = (1 - cur) as 0 | 1;
  const curKey = m.sides[cur];
  const otherKey = m.sides[other];
  if (!s.autoChosen) {
    // First frame: start on the better-visible side.
    s.autoChosen = true;
    if (f.visibility[otherKey] > f.visibility[curKey]) switchSide(m, other);
    return;
  }
  if (!f.gate[curKey] && f.gate[otherKey]) {
    // Lost, not blinking: a frame or two of low visibility (a hand passing, motion blur) must
    // not move a repetition to the other side. Lost is what tracking calls lost: `lost_after`.
    s.autoLostSince ??= f.t;
    if (f.t - s.autoLostSince >= m.spec.tracking.lostAfter - EPS) switchSide(m, other);
    return;
  }
  s.autoLostSince = null;
  if (f.visibility[otherKey] > f.visibility[curKey] + AUTO_MARGIN) {
    if (s.autoSince === null) s.autoSince = f.t;
    if (f.t - s.autoSince >= AUTO_AFTER - EPS && !s.inRep) switchSide(m, other);
  } else s.autoSince = null;
}

function switchSide(m: Machine, to: 0 | 1): void {
  m.state.autoSide = to;
  m.state.autoSince = null;
  m.state.autoLostSince = null;
  m.state.candidate = -1;
  m.state.candidateSince = null;
}
