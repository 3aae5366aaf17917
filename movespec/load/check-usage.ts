/**
 * What the MoveSpec's behaviour uses: the signals it needs (transitively), warnings for signals
 * and phases nothing uses, and whether its `sides` fits the side-relative signals it reads.
 */
import type {
  CompiledSpec,
  FormRuleDef,
  HoldDef,
  PhaseDef,
  RepetitionDef,
  SignalDef,
} from "../compiled-spec.js";
import { signalRefs } from "../expression/refs.js";
import { SIDES_MODES, type SidesMode } from "../sides.js";
import type { PhaseSource } from "./read-phases.js";
import { at, type Reader } from "./reader.js";
import type { YEntry, YNode } from "./yaml-tree.js";

/** Everything that reads signals. */
export interface Behaviour {
  readonly phases: readonly PhaseDef[];
  readonly repetition: RepetitionDef | undefined;
  readonly hold: HoldDef | undefined;
  readonly form: readonly FormRuleDef[];
  readonly metrics: readonly string[];
  readonly scoring: CompiledSpec["scoring"];
}

/** Names of the signals the behaviour reads, directly or through other signals. */
export function usedSignals(signals: readonly SignalDef[], b: Behaviour): Set<string> {
  const used = new Set<string>();
  const mark = (ref: string) => used.add(ref.includes(".") ? ref.split(".")[1] : ref);
  for (const p of b.phases) p.signals.forEach(mark);
  for (const f of b.form) f.signals.forEach(mark);
  b.metrics.forEach(mark);
  if (b.scoring.depth) mark(b.scoring.depth.signal);
  if (b.repetition?.start.when) signalRefs(b.repetition.start.when).forEach(mark);
  // Signals come after the signals they use: walking backwards reaches every dependency.
  for (const s of [...signals].reverse()) if (used.has(s.name)) signalRefs(s.expr).forEach(mark);
  return used;
}

export function warnUnusedSignals(
  r: Reader,
  signals: readonly SignalDef[],
  used: ReadonlySet<string>,
  signalsNode: YNode | undefined,
): void {
  for (const s of signals) {
    if (!used.has(s.name)) {
      r.issues.warn(
        "SIGNAL_UNUSED",
        `the signal '${s.name}' is not used by any phase, rule or metric`,
        { path: `signals.${s.name}`, pos: findKeyPos(signalsNode, s.name) },
      );
    }
  }
}

/** Phases no cycle, hold or rule uses (only when there is a repetition or a hold at all). */
export function warnUnusedPhases(r: Reader, phaseSources: readonly PhaseSource[], b: Behaviour) {
  phaseSources.forEach((p, i) => {
    const inUse =
      b.repetition?.cycle.includes(i) ||
      b.hold?.phase === i ||
      b.form.some((f) => f.during.phases.includes(i));
    if (!inUse && (b.repetition || b.hold))
      r.issues.warn(
        "PHASE_UNUSED",
        `the phase '${p.def.name}' is not used by the repetition cycle, the hold or a form rule`,
        { pos: p.pos, path: p.path },
      );
  });
}

/** The signals the behaviour reads directly (not through other signals), as written. */
function rootRefs(b: Behaviour): string[] {
  return [
    ...b.phases.flatMap((p) => [...signalRefs(p.enter), ...signalRefs(p.stay)]),
    ...b.form.flatMap((f) => signalRefs(f.when)),
    ...(b.repetition?.start.when ? signalRefs(b.repetition.start.when) : []),
    ...(b.scoring.depth ? [b.scoring.depth.signal] : []),
  ];
}

/**
 * With sides none, a side-relative signal may only be read with its side named
 * (left.knee_angle). The error points at `metrics` when that is where it is read unqualified
 * (conditions are checked first: their reads have no position of their own here).
 */
export function checkSides(
  r: Reader,
  sides: SidesMode,
  signals: readonly SignalDef[],
  b: Behaviour,
  signalsNode: YNode | undefined,
  metricsNode?: YNode,
): void {
  if (sides !== "none") return;
  const sided = new Set(signals.filter((s) => s.sided).map((s) => s.name));
  const modes = SIDES_MODES.filter((m) => m !== "none").join(", ");
  const first = rootRefs(b).find((ref) => sided.has(ref));
  if (first !== undefined) {
    r.issues.error(
      "SIDE_REQUIRED",
      `the signal '${first}' depends on the side (it uses a landmark such as knee rather than left_knee): set 'sides' (${modes}), or read it as left.${first} / right.${first}`,
      { path: `signals.${first}`, pos: findKeyPos(signalsNode, first) },
    );
    return;
  }
  const metric = b.metrics.find((name) => sided.has(name));
  if (metric !== undefined)
    r.issues.error(
      "SIDE_REQUIRED",
      `metrics names '${metric}', which depends on the side (it uses a landmark such as knee rather than left_knee): name left.${metric} / right.${metric} there, or set 'sides' (${modes})`,
      metricNode(metricsNode, metric) ?? { path: "metrics" },
    );
}

/** A sides mode with nothing side-relative is probably a mistake. */
export function warnUnusedSides(
  r: Reader,
  sides: SidesMode,
  sidesEntry: YEntry | undefined,
  signals: readonly SignalDef[],
): void {
  if (sides !== "none" && sidesEntry && !signals.some((s) => s.sided)) {
    r.issues.warn(
      "SIDES_UNUSED",
      `sides is '${sides}' but no signal uses a side-relative landmark (knee, elbow, ...): use 'knee' rather than 'left_knee', or remove 'sides'`,
      at(sidesEntry.value),
    );
  }
}

/** The entry of `metrics` that names `name` (the list itself in the `a, b` form). */
function metricNode(node: YNode | undefined, name: string) {
  if (!node) return undefined;
  const item =
    node.kind === "seq" ? node.items.find((i) => i.kind === "scalar" && i.value === name) : node;
  return at(item ?? node);
}

function findKeyPos(node: YNode | undefined, key: string) {
  return node?.kind === "map" ? node.entries.find((e) => e.key === key)?.keyPos : undefined;
}
