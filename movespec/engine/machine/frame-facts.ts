import type { SideKey } from "../../sides.js";

/** Frame facts the engine computes once and passes to every machine. */
export interface FrameFacts {
  seq: number;
  t: number;
  /** Gate passed per side key. */
  gate: Record<SideKey, boolean>;
  /** Mean visibility of the gate landmarks per side (for auto). */
  visibility: Record<SideKey, number>;
}
