/** The detection state machine, as the engine uses it. */
export { createMachine } from "./create.js";
export type { FrameFacts } from "./frame-facts.js";
export { openHold } from "./hold.js";
export type { Machine } from "./machine.js";
export type { MachineState } from "./state.js";
export { stepMachine } from "./step.js";
