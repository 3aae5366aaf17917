/** The compiled program, as the engine and the state machine use it. */
export { buildProgram } from "./build.js";
export type { Memory } from "./memory.js";
export type { Program, SignalSlot } from "./program.js";
export { SCALE_TIME_CONSTANT } from "./program.js";
