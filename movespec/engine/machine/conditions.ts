/** Conditions read on the machine's sides, combined as its sides mode says. */
import type { FrameFacts } from "./frame-facts.js";
import { BOTH, type Machine } from "./machine.js";

/** Side index on which phase i's enter condition holds, or -1. */
export function entering(m: Machine, i: number, f: FrameFacts): number {
  const fns = m.enter[i].bySide;
  switch (m.combine) {
    case "single":
      return fns[0]() ? 0 : -1;
    case "auto":
      return fns[m.state.autoSide]() ? m.state.autoSide : -1;
    case "together":
      return fns[0]() && fns[1]() ? 0 : -1;
    case "either":
      if (m.allSides[i]) {
        // Every side that can be seen must be at rest (and at least one must be seen).
        const seen = f.gate.left || f.gate.right;
        return seen && (!f.gate.left || fns[0]()) && (!f.gate.right || fns[1]()) ? BOTH : -1;
      }
      if (f.gate.left && fns[0]()) return 0;
      if (f.gate.right && fns[1]()) return 1;
      return -1;
  }
}

/** Whether phase i, entered on `side`, is kept on this frame. */
export function staying(m: Machine, i: number, side: number, f: FrameFacts): boolean {
  const fns = m.stay[i].bySide;
  switch (m.combine) {
    case "single":
      return fns[0]();
    case "auto":
      return fns[m.state.autoSide]();
    case "together":
      return fns[0]() && fns[1]();
    case "either":
      if (side === BOTH) return (!f.gate.left || fns[0]()) && (!f.gate.right || fns[1]());
      // While the side that entered is hidden, keep the phase (pause).
      return f.gate[m.sides[side]] ? fns[side]() : true;
  }
}

/**
 * A condition on the sides read: on every tracked side (`all`; in `either`, every side the camera
 * sees, at least one seen, as the first phase's rest) or on any tracked side.
 */
export function anySide(
  m: Machine,
  fns: readonly (() => boolean)[],
  f: FrameFacts,
  all: boolean,
): boolean {
  switch (m.combine) {
    case "single":
      return fns[0]();
    case "auto":
      return fns[m.state.autoSide]();
    case "either":
      if (all) {
        const seen = f.gate.left || f.gate.right;
        return seen && (!f.gate.left || fns[0]()) && (!f.gate.right || fns[1]());
      }
      return (f.gate.left && fns[0]()) || (f.gate.right && fns[1]());
    default: {
      const a = f.gate.left && fns[0]();
      const b = f.gate.right && fns[1]();
      return all ? a && b : a || b;
    }
  }
}
