import type { SignalDef } from "../../compiled-spec.js";
import type { Memory } from "./memory.js";
import type { PointTable } from "./points.js";
import type { StateLayout } from "./state-layout.js";

/** What the expression compilers share while a program is built. */
export interface CompileContext {
  readonly defs: ReadonlyMap<string, SignalDef>;
  readonly slotIndex: ReadonlyMap<string, number>;
  readonly points: PointTable;
  readonly state: StateLayout;
  /** Captured by the closures; its arrays exist only once the program is built. */
  readonly memory: Memory;
}

/** What a compiled value reads: point slots (must be visible) and signal slots (must be fresh). */
export interface Reads {
  readonly points: Set<number>;
  readonly deps: Set<number>;
}
