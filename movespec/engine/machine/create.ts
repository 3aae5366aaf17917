/** Compiles a machine once per session: its conditions per side and the signals it accumulates. */
import type { CompiledSpec } from "../../compiled-spec.js";
import type { Expr } from "../../expression/ast.js";
import type { MachineSides, SideKey } from "../../sides.js";
import type { Program } from "../program/index.js";
import type { Emit, Machine, Sided } from "./machine.js";
import { initialMachineState } from "./state.js";

export function createMachine(
  spec: CompiledSpec,
  program: Program,
  { sides, combine }: MachineSides,
  emit: Emit,
): Machine {
  const each = <T>(f: (side: SideKey) => T): Sided<T> => ({ bySide: sides.map(f) });
  const cond = (e: Expr) => each((s) => program.compileCondition(e, s));
  const slots = (e: Expr) => each((s) => program.slotsOf(e, s));
  const rep = spec.repetition;
  const stats = accumulatedSignals(spec);
  return {
    spec,
    program,
    emit,
    sides,
    combine,
    enter: spec.phases.map((p) => cond(p.enter)),
    stay: spec.phases.map((p) => cond(p.stay)),
    enterSlots: spec.phases.map((p) => slots(p.enter)),
    formWhen: spec.form.map((f) => cond(f.when)),
    formSlots: spec.form.map((f) => slots(f.when)),
    startWhen: rep?.start.when ? cond(rep.start.when) : undefined,
    statNames: stats.names,
    statSlots: each((s) =>
      stats.names.map((name) => {
        // `right.knee_lift` (a metric naming its side) reads that side on every side.
        const [fixed, base] = name.includes(".") ? name.split(".", 2) : [undefined, name];
        const def = spec.signals.find((d) => d.name === base)!;
        return program.slotIndex.get(`${def.sided ? (fixed ?? s) : "none"}:${base}`)!;
      }),
    ),
    progressIndex: stats.progressIndex,
    depthIndex: stats.depthIndex,
    allSides: spec.phases.map((_, i) => combine === "either" && rep?.cycle[0] === i),
    state: initialMachineState(spec, stats.names.length * sides.length),
  };
}

/** The metric signals, then the depth and progress signals if they are not metrics already. */
function accumulatedSignals(spec: CompiledSpec): {
  names: string[];
  progressIndex: number;
  depthIndex: number;
} {
  const names = [...spec.metrics];
  const depth = spec.scoring.depth?.signal;
  if (depth && !names.includes(depth)) names.push(depth);
  const progress = spec.repetition?.partial.progress?.signal;
  if (progress && !names.includes(progress)) names.push(progress);
  return {
    names,
    progressIndex: progress ? names.indexOf(progress) : -1,
    depthIndex: depth ? names.indexOf(depth) : -1,
  };
}
