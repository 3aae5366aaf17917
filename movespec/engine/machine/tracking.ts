/**
 * The tracking gate: the gate landmarks must be visible on the sides the machine reads. Losing
 * them for `tracking.lost_after` emits tracking.lost; with `on_lost: reset`, a longer loss also
 * abandons the repetition in progress and the phase.
 */
import { r3 } from "../events.js";
import type { FrameFacts } from "./frame-facts.js";
import { EPS, type Machine } from "./machine.js";
import { partial } from "./repetition.js";
import { envelope } from "./report.js";

/** Updates the tracking state for this frame; true when the machine can read the frame. */
export function updateTracking(m: Machine, f: FrameFacts): boolean {
  const s = m.state;
  if (gateOk(m, f)) {
    if (!s.tracked) {
      m.emit({
        type: "tracking.regained",
        ...envelope(m, f),
        lost_for: r3(f.t - (s.gateFailSince ?? f.t)),
      });
      s.tracked = true;
    }
    s.gateFailSince = null;
    s.resetDone = false;
    return true;
  }
  if (s.gateFailSince === null) s.gateFailSince = f.t;
  s.lastUpdate = null;
  if (s.tracked && f.t - s.gateFailSince >= m.spec.tracking.lostAfter - EPS) {
    s.tracked = false;
    s.candidate = -1;
    s.candidateSince = null;
    // A form rule's `for` counts time the fault was seen: not a loss (a blink still counts).
    s.formSince.fill(null);
    m.emit({
      type: "tracking.lost",
      ...envelope(m, f),
      since_t: s.gateFailSince,
      missing: missing(m, f),
    });
  }
  if (
    !s.tracked &&
    m.spec.tracking.onLost === "reset" &&
    !s.resetDone &&
    f.t - s.gateFailSince >= m.spec.tracking.resetAfter - EPS
  ) {
    s.resetDone = true;
    if (s.inRep) partial(m, f, "tracking_lost");
    s.inRep = false;
    s.phase = -1;
    s.lastPhase = -1;
    s.phaseSince = null;
    s.armed = false;
    s.startSince = null;
  }
  return false;
}

function gateOk(m: Machine, f: FrameFacts): boolean {
  switch (m.combine) {
    case "single":
      return f.gate[m.sides[0]];
    case "auto":
      return f.gate[m.sides[m.state.autoSide]];
    case "together":
      return f.gate.left && f.gate.right;
    case "either":
      return f.gate.left || f.gate.right;
  }
}

/** The gate landmarks below the visibility threshold, for tracking.lost. */
function missing(m: Machine, f: FrameFacts): string[] {
  const sides = m.combine === "auto" ? [m.sides[m.state.autoSide]] : m.sides;
  const out: string[] = [];
  const visible = (p: number) =>
    m.program.memory.points[p * 4 + 3] >= m.spec.tracking.minVisibility;
  if (sides.includes("none") && !f.gate.none) {
    m.program.gateEither.forEach(([a, b], i) => {
      if (!visible(a) && !visible(b)) out.push(m.program.gateEitherNames[i]);
    });
  }
  for (const side of sides) {
    if (f.gate[side]) continue;
    const points = m.program.gatePoints[side];
    const names = m.program.gateNames[side];
    points.forEach((p, i) => {
      if (
        !(m.program.memory.points[p * 4 + 3] >= m.spec.tracking.minVisibility) &&
        !out.includes(names[i])
      )
        out.push(names[i]);
    });
  }
  return out;
}
