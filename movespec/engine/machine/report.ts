/**
 * What events say: the event side, the envelope, and the signal values that caused an event,
 * side-qualified (`left.x`) when both sides are reported.
 */
import { type EventSide, r3, type Values } from "../events.js";
import type { FrameFacts } from "./frame-facts.js";
import { BOTH, type Machine, type Sided } from "./machine.js";

/** Which of the machine's sides (index) a repetition's figures are read from. */
export function reportSide(m: Machine, side: number): number {
  if (m.combine === "auto") return m.state.autoSide;
  if (m.combine === "either") return side === BOTH ? 0 : side;
  return 0;
}

export function eventSide(m: Machine, side: number): EventSide | undefined {
  switch (m.combine) {
    case "single":
      return m.sides[0] === "none" ? undefined : (m.sides[0] as EventSide);
    case "auto":
      return m.sides[m.state.autoSide] as EventSide;
    case "together":
      return "both";
    case "either":
      return side === BOTH ? "both" : (m.sides[side] as EventSide);
  }
}

export function envelope(
  m: Machine,
  f: FrameFacts,
  side = 0,
): { seq: number; t: number; side?: EventSide } {
  const es = eventSide(m, side);
  return es ? { seq: f.seq, t: f.t, side: es } : { seq: f.seq, t: f.t };
}

/** Current values of the given slots. */
export function values(m: Machine, slots: Sided<number[]>, side: number): Values {
  const out: Values = {};
  const v = m.program.memory.values;
  const put = (k: number, qualified: boolean) => {
    for (const slot of slots.bySide[k]) {
      const info = m.program.slots[slot];
      const x = v[slot];
      if (Number.isNaN(x)) continue;
      const key = qualified && info.side !== "none" ? `${info.side}.${info.name}` : info.name;
      out[key] = r3(x);
    }
  };
  if (m.combine === "together" || (m.combine === "either" && side === BOTH)) {
    put(0, true);
    put(1, true);
  } else put(reportSide(m, side), false);
  return out;
}

/** The extremes the repetition in progress reached, in the direction of the movement. */
export function statValues(m: Machine, side: number): Values {
  const out: Values = {};
  const n = m.statNames.length;
  const k = reportSide(m, side);
  const s = m.state;
  m.statNames.forEach((name, j) => {
    const st = s.stats[k * n + j];
    if (!st) return;
    const def = m.spec.repetition?.partial.progress;
    // Report the extreme reached in the direction of the movement.
    const towardsMin = def && def.signal === name ? def.to < def.from : true;
    out[name] = r3(towardsMin ? st[0] : st[1]);
  });
  return out;
}
