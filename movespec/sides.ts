/**
 * The `sides` mode of a MoveSpec, decoded once into a plan: the sides on which side-relative
 * landmarks and signals are evaluated, and the state machines that run with the sides each one
 * reads and how it combines them. The loader, the program and the engine read the plan; nothing
 * else tests the mode.
 */
import type { Side } from "./topology.js";

export const SIDES_MODES = ["none", "left", "right", "auto", "both", "together", "either"] as const;
export type SidesMode = (typeof SIDES_MODES)[number];

/** A side something is evaluated on; "none" reads only fixed and midpoint landmarks. */
export type SideKey = Side | "none";
export const SIDE_KEYS: readonly SideKey[] = ["none", "left", "right"];

/**
 * How one state machine reads its sides: `single` one side; `auto` the better-visible one of
 * left and right; `together` both at once; `either` whichever side moves.
 */
export type SideCombine = "single" | "auto" | "together" | "either";

export interface MachineSides {
  /** The sides the machine's conditions read: [side] when single, else [left, right]. */
  readonly sides: readonly SideKey[];
  readonly combine: SideCombine;
}

export interface SidesPlan {
  /** Sides on which side-relative signals and gate landmarks are evaluated. */
  readonly evaluated: readonly SideKey[];
  /** One entry per state machine (two for `both`: each counts its own side). */
  readonly machines: readonly MachineSides[];
}

const LEFT_RIGHT: readonly SideKey[] = ["left", "right"];
const single = (side: SideKey): MachineSides => ({ sides: [side], combine: "single" });
const combined = (combine: SideCombine): SidesPlan => ({
  evaluated: LEFT_RIGHT,
  machines: [{ sides: LEFT_RIGHT, combine }],
});

const PLANS: Readonly<Record<SidesMode, SidesPlan>> = {
  none: { evaluated: ["none"], machines: [single("none")] },
  left: { evaluated: ["left"], machines: [single("left")] },
  right: { evaluated: ["right"], machines: [single("right")] },
  both: { evaluated: LEFT_RIGHT, machines: [single("left"), single("right")] },
  auto: combined("auto"),
  together: combined("together"),
  either: combined("either"),
};

export function sidesPlan(mode: SidesMode): SidesPlan {
  return PLANS[mode];
}

/** The side that resolves side-relative landmark names (`knee`): none for "none". */
export function landmarkSide(side: SideKey): Side | undefined {
  return side === "none" ? undefined : side;
}
