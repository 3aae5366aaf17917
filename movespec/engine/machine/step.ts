/** One frame through a machine, in a fixed order: side choice, tracking, phase, repetition, form, hold. */
import { chooseAutoSide } from "./auto-side.js";
import { updateForm } from "./form.js";
import type { FrameFacts } from "./frame-facts.js";
import { updateHold } from "./hold.js";
import type { Machine } from "./machine.js";
import { updatePhase } from "./phases.js";
import { updateRepetition } from "./repetition.js";
import { updateTracking } from "./tracking.js";

export function stepMachine(m: Machine, f: FrameFacts): void {
  if (m.combine === "auto") chooseAutoSide(m, f);
  if (!updateTracking(m, f)) {
    updateHold(m, f, false);
    return;
  }
  updatePhase(m, f);
  updateRepetition(m, f);
  updateForm(m, f);
  updateHold(m, f, true);
  m.state.lastUpdate = f.t;
}
