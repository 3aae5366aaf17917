/** `buildProgram`: a CompiledSpec and a topology in, a Program out (see program.ts). */
import type { CompiledSpec } from "../../compiled-spec.js";
import type { Expr } from "../../expression/ast.js";
import { FUNCTIONS } from "../../expression/functions.js";
import { sidesPlan } from "../../sides.js";
import { scalePairs, TOPOLOGIES, type TopologyName } from "../../topology.js";
import { FILTER_STATE_SIZE, resetFilter } from "../filters.js";
import { compileAdaptive } from "./compile-adaptive.js";
import { compileCondition } from "./compile-condition.js";
import type { CompileContext, Reads } from "./compile-context.js";
import { compileValue } from "./compile-value.js";
import { gateLandmarks } from "./gate.js";
import { allocateMemory, emptyMemory, type Memory } from "./memory.js";
import { PointTable } from "./points.js";
import { type Program, type SignalSlot, slotKey } from "./program.js";
import { type PlannedSlot, planSlots, slotsOf } from "./slots.js";
import { StateLayout } from "./state-layout.js";

export function buildProgram(
  spec: CompiledSpec,
  topologyName: TopologyName,
  options: { everySignal?: boolean } = {},
): Program {
  const topology = TOPOLOGIES[topologyName];
  const points = new PointTable(topology);
  const scalePoints = scalePointSlots(spec, points);
  const scaleByHeight = spec.scale === "height" && spec.signals.some((s) => usesScale(s.expr));
  const { evaluated } = sidesPlan(spec.sides);
  const defs = new Map(
    (options.everySignal ? (spec.declaredSignals ?? spec.signals) : spec.signals).map((s) => [
      s.name,
      s,
    ]),
  );
  const planned = planSlots(spec, defs, evaluated, options.everySignal);
  const slotIndex = new Map(planned.map((p, i) => [slotKey(p.name, p.side), i]));
  const state = new StateLayout();
  const building = emptyMemory();
  const ctx: CompileContext = { defs, slotIndex, points, state, memory: building };
  const slots = planned.map((p) => compileSlot(ctx, p));
  const { gatePoints, gateNames, gateEither, gateEitherNames } = gateLandmarks(
    spec,
    evaluated,
    points,
  );
  const memory = allocateMemory(building, {
    keypoints: topology.keypointCount,
    points: points.sources.length,
    slots: slots.length,
    state: state.size,
  });
  const resetFilters = () => resetState(memory, state, slots);
  resetFilters();
  return {
    topology: topologyName,
    keypointCount: topology.keypointCount,
    memory,
    pointSources: points.sources,
    slots,
    slotIndex,
    scalePoints,
    scaleByHeight,
    gatePoints,
    gateNames,
    gateEither,
    gateEitherNames,
    compileCondition: (e, side) => compileCondition(ctx, e, side),
    slotsOf: (e, side) => slotsOf(defs, slotIndex, e, side),
    resetFilters,
    clearUnusedState: (copy) => {
      for (const clear of state.unusedClearers) clear(copy);
    },
  };
}

/** The landmark pairs of the body scale, when a signal divides by it. */
function scalePointSlots(spec: CompiledSpec, points: PointTable): (readonly [number, number])[] {
  if (!spec.signals.some((s) => usesScale(s.expr))) return [];
  return scalePairs(spec.scale).map(
    ([a, b]) => [points.landmark(a, "none"), points.landmark(b, "none")] as const,
  );
}

function usesScale(e: Expr): boolean {
  switch (e.kind) {
    case "call":
      return FUNCTIONS[e.fn]?.scaled === true || e.args.some(usesScale);
    case "neg":
    case "not":
      return usesScale(e.operand);
    case "arith":
    case "compare":
    case "and":
    case "or":
      return usesScale(e.left) || usesScale(e.right);
    default:
      return false;
  }
}

function compileSlot(ctx: CompileContext, p: PlannedSlot): SignalSlot {
  const reads: Reads = { points: new Set(), deps: new Set() };
  const value = compileValue(ctx, p.def.expr, p.side, reads);
  const adaptive = p.def.adaptive ? compileAdaptive(ctx, p.def.adaptive, value) : undefined;
  return {
    name: p.name,
    side: p.side,
    def: p.def,
    points: [...reads.points],
    deps: [...reads.deps],
    compute: adaptive?.compute ?? value,
    smoothing: p.def.smoothing,
    filterAt: ctx.state.alloc(FILTER_STATE_SIZE),
    adaptiveAt: adaptive?.at ?? -1,
  };
}

/** Puts the scale follower, the stateful functions and every filter in their initial state. */
function resetState(memory: Memory, layout: StateLayout, slots: readonly SignalSlot[]): void {
  memory.state[0] = Number.NaN;
  memory.state[1] = Number.NaN;
  for (const init of layout.initializers) init(memory.state);
  for (const s of slots) resetFilter(memory.state, s.filterAt);
}
