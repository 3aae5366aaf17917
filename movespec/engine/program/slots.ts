/**
 * Signal slots: a signal evaluated on a side (`left:knee_angle`) or unsided (`none:trunk_lean`).
 * Only the slots something reads exist: what the phases, form rules, start condition, metrics,
 * depth and progress read on each evaluated side, and, transitively, the signals those use.
 */
import type { CompiledSpec, SignalDef } from "../../compiled-spec.js";
import type { Expr } from "../../expression/ast.js";
import { forEachRef } from "../../expression/refs.js";
import { SIDE_KEYS, type SideKey } from "../../sides.js";
import { slotKey } from "./program.js";

export interface PlannedSlot {
  readonly name: string;
  readonly side: SideKey;
  readonly def: SignalDef;
}

/** The slots that exist, in evaluation order (the spec's signal order, then none, left, right). */
export function planSlots(
  spec: CompiledSpec,
  defs: ReadonlyMap<string, SignalDef>,
  evaluated: readonly SideKey[],
  /** Every signal on every evaluated side, read or not (for statistics). */
  everySignal = false,
): PlannedSlot[] {
  const needed = new Set<string>();
  const need = (name: string, side: SideKey) => {
    const def = defs.get(name)!;
    const s: SideKey = def.sided ? side : "none";
    const key = slotKey(name, s);
    if (needed.has(key)) return;
    needed.add(key);
    forEachRef(def.expr, (ref) => need(ref.name, ref.side ?? s));
  };
  const roots: Expr[] = [
    ...spec.phases.flatMap((ph) => [ph.enter, ph.stay]),
    ...spec.form.map((r) => r.when),
    ...(spec.repetition?.start.when ? [spec.repetition.start.when] : []),
  ];
  // Every signal: a side-relative one on each side (with sides none, nothing else reads it
  // on a side it does not name).
  if (everySignal)
    for (const def of defs.values())
      for (const side of def.sided ? (["left", "right"] as const) : (["none"] as const))
        need(def.name, side);
  const named = [
    ...spec.metrics,
    spec.scoring.depth?.signal,
    spec.repetition?.partial.progress?.signal,
  ];
  for (const side of evaluated) {
    for (const e of roots) forEachRef(e, (ref) => need(ref.name, ref.side ?? side));
    for (const name of named) {
      // A metric may name its side (`right.knee_lift`): that side's slot, whatever is evaluated.
      const [fixed, base] = name?.includes(".") ? name.split(".", 2) : [undefined, name];
      if (base && defs.has(base)) need(base, (fixed as SideKey | undefined) ?? side);
    }
  }
  const planned: PlannedSlot[] = [];
  for (const def of defs.values()) {
    for (const side of SIDE_KEYS) {
      if (needed.has(slotKey(def.name, side))) planned.push({ name: def.name, side, def });
    }
  }
  return planned;
}

/** The slot a signal reference reads when evaluated on `side` (undefined if it does not exist). */
export function slotOfRef(
  defs: ReadonlyMap<string, SignalDef>,
  slotIndex: ReadonlyMap<string, number>,
  ref: Expr & { kind: "ref" },
  side: SideKey,
): number | undefined {
  const def = defs.get(ref.name)!;
  const s: SideKey = ref.side ?? (def.sided ? side : "none");
  return slotIndex.get(slotKey(ref.name, def.sided ? s : "none"));
}

/** Slots an expression reads on a side, in order of first reference. */
export function slotsOf(
  defs: ReadonlyMap<string, SignalDef>,
  slotIndex: ReadonlyMap<string, number>,
  e: Expr,
  side: SideKey,
): number[] {
  const out: number[] = [];
  forEachRef(e, (ref) => {
    const idx = slotOfRef(defs, slotIndex, ref, side);
    if (idx !== undefined && !out.includes(idx)) out.push(idx);
  });
  return out;
}
