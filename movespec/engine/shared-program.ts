/**
 * One compiled program per MoveSpec and topology, shared by every engine that runs it. A program
 * is closures over one memory object (movespec/engine/program); compiling it for each session
 * cost each engine about 20 KB of closures and the compile time at every attach. Sessions now
 * share the closures and keep only their own arrays: before an engine touches the program it
 * binds its arrays into the shared memory object (a pointer swap when another engine used it
 * last; nothing when it did itself). Engines run synchronously, one frame at a time, so no two
 * are ever inside the program at once.
 */
import type { CompiledSpec } from "../compiled-spec.js";
import { sidesPlan } from "../sides.js";
import type { TopologyName } from "../topology.js";
import { createMachine, type Machine } from "./machine/index.js";
import { initialMachineState } from "./machine/state.js";
import { buildProgram, type Program } from "./program/index.js";
import type { MemoryUnderConstruction } from "./program/memory.js";

type Emit = Machine["emit"];

export class SharedProgram {
  readonly program: Program;
  private readonly machines: readonly Machine[];
  private owner: MemoryUnderConstruction | undefined;

  private constructor(
    private readonly spec: CompiledSpec,
    topology: TopologyName,
    everySignal: boolean,
  ) {
    this.program = buildProgram(spec, topology, { everySignal });
    const unbound: Emit = () => {
      throw new Error("a machine template emitted an event");
    };
    this.machines = sidesPlan(spec.sides).machines.map((sides) =>
      createMachine(spec, this.program, sides, unbound),
    );
  }

  private static readonly cache = new WeakMap<CompiledSpec, Map<string, SharedProgram>>();

  /**
   * The program of `spec` on `topology`, compiled at its first use; `everySignal` computes the
   * signals nothing reads too (`movespec run --stats`).
   */
  static of(spec: CompiledSpec, topology: TopologyName, everySignal = false): SharedProgram {
    let byTopology = SharedProgram.cache.get(spec);
    if (!byTopology) {
      byTopology = new Map();
      SharedProgram.cache.set(spec, byTopology);
    }
    const key = everySignal ? `${topology}+every` : topology;
    let shared = byTopology.get(key);
    if (!shared) {
      shared = new SharedProgram(spec, topology, everySignal);
      byTopology.set(key, shared);
    }
    return shared;
  }

  /** Arrays of an engine of its own, in their initial state (filters reset). */
  newMemory(): MemoryUnderConstruction {
    const shape = this.program.memory;
    const memory: MemoryUnderConstruction = {
      frame: new Float64Array(shape.frame.length),
      points: new Float64Array(shape.points.length),
      values: new Float64Array(shape.values.length).fill(Number.NaN),
      fresh: new Uint8Array(shape.fresh.length),
      state: new Float64Array(shape.state.length),
      t: 0,
    };
    this.bind(memory).resetFilters();
    return memory;
  }

  /** An engine's machines: the compiled conditions shared, its own state and event sink. */
  newMachines(emit: Emit): Machine[] {
    return this.machines.map((template) => ({
      ...template,
      emit,
      state: initialMachineState(this.spec, template.statNames.length * template.sides.length),
    }));
  }

  /** The program, reading and writing `memory` (an engine's, from newMemory) until another binds. */
  bind(memory: MemoryUnderConstruction): Program {
    if (this.owner === memory) return this.program;
    const shared = this.program.memory as MemoryUnderConstruction;
    if (this.owner) this.owner.t = shared.t;
    shared.frame = memory.frame;
    shared.points = memory.points;
    shared.values = memory.values;
    shared.fresh = memory.fresh;
    shared.state = memory.state;
    shared.t = memory.t;
    this.owner = memory;
    return this.program;
  }
}
