/**
 * `load(yaml)`: parse, validate and compile a MoveSpec. Never throws; every problem becomes an
 * issue with a code, a message and a position.
 */

import type { CompiledSpec, FormRuleDef, HoldDef, RepetitionDef } from "../compiled-spec.js";
import { type Issue, IssueList, type Position } from "../issues.js";
import { sidesPlan } from "../sides.js";
import { checkRadians, checkThresholdRanges } from "./check-thresholds.js";
import {
  type Behaviour,
  checkSides,
  usedSignals,
  warnUnusedPhases,
  warnUnusedSides,
  warnUnusedSignals,
} from "./check-usage.js";
import type { PhaseNames } from "./phase-ref.js";
import { readFit } from "./read-fit.js";
import { readForm } from "./read-form.js";
import { readHeader } from "./read-header.js";
import { readHold } from "./read-hold.js";
import { readMetrics, readScoring } from "./read-metrics.js";
import { type PhaseSource, readPhases } from "./read-phases.js";
import { readReferences } from "./read-references.js";
import { readRepetition } from "./read-repetition.js";
import {
  DEFAULT_SMOOTHING,
  readSignals,
  readSmoothing,
  type SignalsResult,
} from "./read-signals.js";
import { readTracking } from "./read-tracking.js";
import { Reader } from "./reader.js";
import { resolveTopologies } from "./resolve-topologies.js";
import { parseYaml, type YEntry, type YMap } from "./yaml-tree.js";

export interface LoadResult {
  spec?: CompiledSpec;
  errors: Issue[];
  warnings: Issue[];
}

const TOP_KEYS = [
  "movespec",
  "name",
  "description",
  "tags",
  "camera",
  "topologies",
  "sides",
  "scale",
  "smoothing",
  "tracking",
  "signals",
  "phases",
  "repetition",
  "hold",
  "form",
  "metrics",
  "scoring",
  "references",
  "fit",
] as const;

export function load(yamlSource: string): LoadResult {
  const issues = new IssueList();
  try {
    const spec = loadInto(typeof yamlSource === "string" ? yamlSource : "", issues);
    const { errors, warnings } = issues.sorted();
    return errors.length === 0 && spec ? { spec, errors, warnings } : { errors, warnings };
  } catch (err) {
    // A bug must not take the caller down; report it as an issue instead.
    const message =
      err instanceof RangeError
        ? "the MoveSpec is too complex to load"
        : "the MoveSpec could not be loaded";
    return { errors: [{ code: "LOAD_FAILED", message, severity: "error" }], warnings: [] };
  }
}

function loadInto(source: string, issues: IssueList): CompiledSpec | undefined {
  const parsed = parseYaml(source, issues);
  if (!parsed.root) {
    if (issues.errors.length === 0)
      issues.error("FIELD_REQUIRED", "the MoveSpec is empty: start with 'movespec: 1'", {
        pos: { line: 1, column: 1 },
      });
    return undefined;
  }
  const r = new Reader(issues);
  const root = r.map(parsed.root, "a MoveSpec");
  if (!root) return undefined;
  const k = r.keys(root, TOP_KEYS, "the MoveSpec");

  const header = readHeader(r, k, root);
  const globalSmoothing = k.has("smoothing")
    ? (readSmoothing(r, k.get("smoothing")!.value, "smoothing") ?? DEFAULT_SMOOTHING)
    : DEFAULT_SMOOTHING;
  const signalsNode = r.required(k, "signals", root, "the MoveSpec");
  const sig = readSignals(
    r,
    signalsNode,
    globalSmoothing,
    parsed.position,
    sidesPlan(header.sides).evaluated,
  );
  const phaseSources = readPhases(
    r,
    r.required(k, "phases", root, "the MoveSpec"),
    sig.signals,
    parsed.position,
    sig.declared,
  );
  const phases = phaseSources.map((p) => p.def);
  const { repetition, hold, form } = readDetection(r, k, root, phaseSources, sig, parsed.position);
  // Signals that failed are declared all the same: reading them is not a second mistake.
  const metrics = readMetrics(
    r,
    k.get("metrics")?.value,
    sig.declared,
    new Set(sig.signals.filter((s) => !s.sided).map((s) => s.name)),
    phases,
    repetition,
  );
  const scoring = readScoring(r, k.get("scoring")?.value, sig.declared) ?? {};
  const behaviour: Behaviour = { phases, repetition, hold, form, metrics, scoring };

  checkThresholdRanges(r, r.conditions, sig.signals);
  const used = usedSignals(sig.signals, behaviour);
  // A `sides` that could not be read has its own error: not also "set sides" for its signals.
  if (!k.has("sides") || header.sidesRead)
    checkSides(r, header.sides, sig.signals, behaviour, signalsNode, k.get("metrics")?.value);

  // The gate defaults to the landmarks the used signals read.
  const landmarks = new Set<string>();
  for (const s of sig.signals)
    if (used.has(s.name)) for (const l of sig.landmarks.get(s.name) ?? []) landmarks.add(l);
  const tracking = readTracking(r, k.get("tracking")?.value, [...landmarks]);
  const topologies = resolveTopologies(r, k.get("topologies")?.value, root, {
    sides: header.sides,
    scale: header.scale,
    landmarks,
    usesScale: sig.usesScale,
    tracking,
  });

  const references = readReferences(r, k.get("references")?.value);
  const fit = k.has("fit") ? readFit(r, k.get("fit")!.value, root, source) : [];
  // Warnings that judge the MoveSpec as a whole are only true of a MoveSpec read without errors:
  // after a broken signal or rule, "unused" and "radians?" would follow from the error, not add
  // to it. They appear once the errors are fixed.
  if (issues.errors.length === 0) {
    warnUnusedSignals(r, sig.signals, used, signalsNode);
    warnUnusedPhases(r, phaseSources, behaviour);
    warnUnusedSides(r, header.sides, k.get("sides"), sig.signals);
    checkRadians(r, r.conditions, sig.signals);
  }
  const { name } = header;
  if (name === undefined || !tracking || issues.errors.length > 0) return undefined;
  return {
    movespec: 1,
    name,
    description: header.description,
    tags: header.tags,
    camera: header.camera,
    topologies,
    sides: header.sides,
    scale: header.scale,
    tracking,
    signals: sig.signals.filter((s) => used.has(s.name)),
    declaredSignals: sig.signals,
    phases,
    repetition,
    hold,
    form,
    metrics,
    scoring,
    references,
    fit,
  };
}

/** What to detect: `repetition`, `hold` (at least one) and `form`, once the phases are known. */
function readDetection(
  r: Reader,
  k: Map<string, YEntry>,
  root: YMap,
  phaseSources: readonly PhaseSource[],
  sig: SignalsResult,
  position: (offset: number) => Position,
): { repetition?: RepetitionDef; hold?: HoldDef; form: FormRuleDef[] } {
  const phasesNode = k.get("phases")?.value;
  const phases: PhaseNames = {
    defs: phaseSources.map((p) => p.def),
    declared:
      phasesNode?.kind === "map" ? new Set(phasesNode.entries.map((e) => e.key)) : undefined,
  };
  const repetition = k.has("repetition")
    ? readRepetition(r, k.get("repetition")!.value, phases, sig.declared, position)
    : undefined;
  const hold = k.has("hold") ? readHold(r, k.get("hold")!.value, phases) : undefined;
  const form = k.has("form")
    ? readForm(r, k.get("form")!.value, phases, sig.declared, position)
    : [];
  if (!k.has("repetition") && !k.has("hold")) {
    r.issues.error(
      "NOTHING_TO_DETECT",
      "the MoveSpec needs a 'repetition' (to count) or a 'hold' (to time), or both",
      { pos: root.pos },
    );
  }
  return { repetition, hold, form };
}
