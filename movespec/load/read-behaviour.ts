/** Reads what the engine reports: `repetition`, `hold`, `form`, `metrics`, `scoring`, `tracking`. */
import type {
  FormRuleDef,
  FormSeverity,
  HoldDef,
  PhaseDef,
  RepetitionDef,
  SignalDef,
  TrackingDef,
} from "../compiled-spec.js";
import type { Position } from "../issues.js";
import { parseLandmarkName } from "../topology.js";
import { conjunctionIntervals, singleComparison } from "./intervals.js";
import { readCondition } from "./read-phases.js";
import { at, IDENTIFIER, type Reader, suggestion } from "./reader.js";
import type { YMap, YNode } from "./yaml-tree.js";

export const FORM_PENALTY: Record<FormSeverity, number> = { info: 5, warning: 15, error: 40 };

function phaseIndex(
  r: Reader,
  phases: readonly PhaseDef[],
  name: string,
  node: YNode,
  what: string,
): number | undefined {
  const i = phases.findIndex((p) => p.name === name);
  if (i < 0) {
    r.issues.error(
      "UNKNOWN_PHASE",
      `${what} refers to the phase '${name}', which is not defined under phases${suggestion(
        name,
        phases.map((p) => p.name),
      )}`,
      at(node),
    );
    return undefined;
  }
  return i;
}

export function readRepetition(
  r: Reader,
  node: YNode | undefined,
  phases: readonly PhaseDef[],
  signals: readonly SignalDef[],
  position: (offset: number) => Position,
): RepetitionDef | undefined {
  const m = r.map(node, "repetition");
  if (!m) return undefined;
  const k = r.keys(m, ["cycle", "target", "within", "start", "partial"], "repetition");
  const cycleNames = r.names(r.required(k, "cycle", m, "repetition"), "repetition.cycle");
  if (!cycleNames) return undefined;
  const cycleNode = k.get("cycle")!.value;
  const cycle: number[] = [];
  let ok = true;
  for (const { name, node: n } of cycleNames) {
    const i = phaseIndex(r, phases, name, n, "repetition.cycle");
    if (i === undefined) ok = false;
    else cycle.push(i);
  }
  if (!ok) return undefined;
  if (cycle.length < 2) {
    r.issues.error(
      "CYCLE_TOO_SHORT",
      "a cycle needs at least two phases, e.g. [up, down, up] or [seated, standing]",
      at(cycleNode),
    );
    return undefined;
  }
  for (let i = 1; i < cycle.length; i++) {
    if (cycle[i] === cycle[i - 1]) {
      r.issues.error(
        "CYCLE_REPEATED_PHASE",
        `the cycle names '${phases[cycle[i]].name}' twice in a row`,
        at(cycleNode),
      );
      return undefined;
    }
  }

  let target = cycle[1];
  if (k.has("target")) {
    const name = r.string(k.get("target")!.value, "repetition.target");
    if (name === undefined) return undefined;
    const i = phaseIndex(r, phases, name, k.get("target")!.value, "repetition.target");
    if (i === undefined) return undefined;
    if (!cycle.slice(1).includes(i) || i === cycle[0]) {
      r.issues.error(
        "VALUE_INVALID",
        `repetition.target must be a phase of the cycle other than the first`,
        at(k.get("target")!.value),
      );
      return undefined;
    }
    target = i;
  }

  let minDuration = 0.3;
  let maxDuration = 20;
  if (k.has("within")) {
    const w = k.get("within")!.value;
    let minNode: YNode | undefined;
    let maxNode: YNode | undefined;
    if (w.kind === "seq" && w.items.length === 2) [minNode, maxNode] = w.items;
    else if (w.kind === "map") {
      const wk = r.keys(w, ["min", "max"], "repetition.within");
      minNode = wk.get("min")?.value;
      maxNode = wk.get("max")?.value;
    } else {
      r.issues.error(
        "TYPE_MISMATCH",
        "repetition.within must be [min, max] or {min, max}, e.g. [0.5s, 8s]",
        at(w),
      );
      return undefined;
    }
    const lo = minNode ? r.duration(minNode, "the shortest repetition (within.min)") : 0;
    const hi = maxNode ? r.duration(maxNode, "the longest repetition (within.max)") : maxDuration;
    if (lo === undefined || hi === undefined) return undefined;
    if (lo >= hi) {
      r.issues.error(
        "WITHIN_INVALID",
        `repetition.within: the minimum (${lo} s) must be below the maximum (${hi} s)`,
        at(w),
      );
      return undefined;
    }
    minDuration = lo;
    maxDuration = hi;
  }

  const start: { phase: number; for: number; when?: RepetitionDef["start"]["when"] } = {
    phase: cycle[0],
    for: 0,
  };
  if (k.has("start")) {
    const s = r.map(k.get("start")!.value, "repetition.start");
    if (!s) return undefined;
    const sk = r.keys(s, ["phase", "for", "when"], "repetition.start");
    if (sk.has("phase")) {
      const name = r.string(sk.get("phase")!.value, "repetition.start.phase");
      const i =
        name === undefined
          ? undefined
          : phaseIndex(r, phases, name, sk.get("phase")!.value, "repetition.start.phase");
      if (i === undefined) return undefined;
      if (i !== cycle[0]) {
        r.issues.error(
          "VALUE_INVALID",
          `repetition.start.phase must be the first phase of the cycle ('${phases[cycle[0]].name}')`,
          at(sk.get("phase")!.value),
        );
        return undefined;
      }
    }
    if (sk.has("for")) {
      const f = r.duration(sk.get("for")!.value, "repetition.start.for", 60);
      if (f === undefined) return undefined;
      start.for = f;
    }
    if (sk.has("when")) {
      const c = readCondition(
        r,
        sk.get("when")!.value,
        "repetition.start.when",
        new Set(signals.map((x) => x.name)),
        position,
      );
      if (!c) return undefined;
      start.when = c.expr;
    }
  }

  const partial: {
    enabled: boolean;
    minProgress: number;
    progress?: { signal: string; from: number; to: number };
  } = {
    enabled: true,
    minProgress: 0.3,
  };
  if (k.has("partial")) {
    const p = k.get("partial")!.value;
    if (p.kind === "scalar" && typeof p.value === "boolean") partial.enabled = p.value;
    else {
      const pm = r.map(p, "repetition.partial");
      if (!pm) return undefined;
      const pk = r.keys(pm, ["min_progress"], "repetition.partial");
      if (pk.has("min_progress")) {
        const v = r.number(pk.get("min_progress")!.value, "repetition.partial.min_progress", {
          min: 0,
          max: 1,
        });
        if (v === undefined) return undefined;
        partial.minProgress = v;
      }
    }
  }
  // Progress runs from where the start phase is left to where the target phase is entered, on
  // the signal the target's condition compares.
  const targetCmp = singleComparison(phases[target].enter);
  if (targetCmp && !targetCmp.key.includes(".")) {
    const startStay = conjunctionIntervals(phases[cycle[0]].stay);
    const bound = startStay?.get(targetCmp.key);
    const from = bound ? (targetCmp.op.startsWith("<") ? bound.lo : bound.hi) : undefined;
    if (from !== undefined && Number.isFinite(from) && from !== targetCmp.value) {
      partial.progress = { signal: targetCmp.key, from, to: targetCmp.value };
    }
  }
  return { cycle, target, minDuration, maxDuration, start, partial };
}

export function readHold(
  r: Reader,
  node: YNode | undefined,
  phases: readonly PhaseDef[],
): HoldDef | undefined {
  const m = r.map(node, "hold");
  if (!m) return undefined;
  const k = r.keys(m, ["phase", "target", "grace", "progress_every"], "hold");
  const phaseNode = r.required(k, "phase", m, "hold");
  const targetNode = r.required(k, "target", m, "hold");
  const name = r.string(phaseNode, "hold.phase");
  const phase =
    name === undefined ? undefined : phaseIndex(r, phases, name, phaseNode!, "hold.phase");
  const target = r.duration(targetNode, "hold.target");
  const grace = k.has("grace") ? r.duration(k.get("grace")!.value, "hold.grace", 60) : 0.5;
  const progressEvery = k.has("progress_every")
    ? r.duration(k.get("progress_every")!.value, "hold.progress_every")
    : 5;
  if (
    phase === undefined ||
    target === undefined ||
    grace === undefined ||
    progressEvery === undefined
  )
    return undefined;
  if (target <= 0) {
    r.issues.error("VALUE_INVALID", "hold.target must be longer than 0 s", at(targetNode!));
    return undefined;
  }
  return { phase, target, grace, progressEvery };
}

export function readForm(
  r: Reader,
  node: YNode | undefined,
  phases: readonly PhaseDef[],
  signals: readonly SignalDef[],
  position: (offset: number) => Position,
): FormRuleDef[] {
  const out: FormRuleDef[] = [];
  const items = r.list(node, "form");
  if (!items) return out;
  const ids = new Set<string>();
  const signalNames = new Set(signals.map((s) => s.name));
  items.forEach((item, index) => {
    const m = r.map(item, `form rule ${index + 1}`);
    if (!m) return;
    const k = r.keys(
      m,
      ["id", "when", "during", "severity", "message", "for", "cooldown", "voids_rep", "penalty"],
      "a form rule",
    );
    const id = r.string(r.required(k, "id", m, "a form rule"), "form rule id");
    const message = r.string(r.required(k, "message", m, "a form rule"), "form rule message", {
      maxLength: 500,
    });
    const when = readCondition(
      r,
      r.required(k, "when", m, "a form rule"),
      `form[${index}].when`,
      signalNames,
      position,
    );
    if (id === undefined || message === undefined || !when) return;
    if (!IDENTIFIER.test(id)) {
      r.issues.error(
        "NAME_INVALID",
        `form rule id '${id}' must be lower case letters, digits and _`,
        at(k.get("id")!.value),
      );
      return;
    }
    if (ids.has(id)) {
      r.issues.error("DUPLICATE_ID", `two form rules have the id '${id}'`, at(k.get("id")!.value));
      return;
    }
    ids.add(id);
    let during: FormRuleDef["during"] = { kind: "rep", phases: [] };
    if (k.has("during")) {
      const d = k.get("during")!.value;
      if (d.kind === "scalar" && (d.value === "rep" || d.value === "always"))
        during = { kind: d.value, phases: [] };
      else {
        const names = r.names(d, "form rule during");
        if (!names) return;
        const idx: number[] = [];
        for (const { name, node: n } of names) {
          const i = phaseIndex(r, phases, name, n, `form rule '${id}' during`);
          if (i === undefined) return;
          idx.push(i);
        }
        during = { kind: "phases", phases: idx };
      }
    }
    const severity = k.has("severity")
      ? r.oneOf(k.get("severity")!.value, "severity", ["info", "warning", "error"] as const)
      : "warning";
    const forSeconds = k.has("for") ? r.duration(k.get("for")!.value, "for", 60) : 0;
    const cooldown = k.has("cooldown") ? r.duration(k.get("cooldown")!.value, "cooldown") : 2;
    const voidsRep = k.has("voids_rep") ? r.boolean(k.get("voids_rep")!.value, "voids_rep") : false;
    if (
      severity === undefined ||
      forSeconds === undefined ||
      cooldown === undefined ||
      voidsRep === undefined
    )
      return;
    const penalty = k.has("penalty")
      ? r.number(k.get("penalty")!.value, "penalty", { min: 0, max: 100 })
      : FORM_PENALTY[severity];
    if (penalty === undefined) return;
    out.push({
      id,
      when: when.expr,
      during,
      severity,
      message,
      for: forSeconds,
      cooldown,
      voidsRep,
      penalty,
      signals: [...when.signals],
    });
  });
  return out;
}

export function readTracking(
  r: Reader,
  node: YNode | undefined,
  defaultLandmarks: readonly string[],
): TrackingDef | undefined {
  const def: {
    landmarks: string[];
    minVisibility: number;
    lostAfter: number;
    onLost: "pause" | "reset";
    resetAfter: number;
  } = {
    landmarks: [...defaultLandmarks],
    minVisibility: 0.5,
    lostAfter: 0.3,
    onLost: "pause",
    resetAfter: 1,
  };
  if (!node) return def;
  const m: YMap | undefined = r.map(node, "tracking");
  if (!m) return undefined;
  const k = r.keys(
    m,
    ["landmarks", "min_visibility", "lost_after", "on_lost", "reset_after"],
    "tracking",
  );
  if (k.has("landmarks")) {
    const names = r.names(k.get("landmarks")!.value, "tracking.landmarks");
    if (!names) return undefined;
    for (const { name, node: n } of names) {
      if (!parseLandmarkName(name)) {
        r.issues.error(
          "UNKNOWN_LANDMARK",
          `unknown landmark '${name}' in tracking.landmarks`,
          at(n),
        );
        return undefined;
      }
    }
    def.landmarks = names.map((n) => n.name);
  }
  if (k.has("min_visibility")) {
    const v = r.number(k.get("min_visibility")!.value, "tracking.min_visibility", {
      min: 0,
      max: 1,
    });
    if (v === undefined) return undefined;
    def.minVisibility = v;
  }
  if (k.has("lost_after")) {
    const v = r.duration(k.get("lost_after")!.value, "tracking.lost_after", 60);
    if (v === undefined) return undefined;
    def.lostAfter = v;
  }
  if (k.has("on_lost")) {
    const v = r.oneOf(k.get("on_lost")!.value, "tracking.on_lost", ["pause", "reset"] as const);
    if (v === undefined) return undefined;
    def.onLost = v;
  }
  if (k.has("reset_after")) {
    const v = r.duration(k.get("reset_after")!.value, "tracking.reset_after", 600);
    if (v === undefined) return undefined;
    def.resetAfter = v;
  }
  return def;
}
