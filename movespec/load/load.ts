/**
 * `load(yaml)`: parse, validate and compile a MoveSpec. Never throws; every problem becomes an
 * issue with a code, a message and a position.
 */

import { parseAspectRatio } from "../aspect-ratio.js";
import type { CameraView, CompiledSpec, ReferenceRecording } from "../compiled-spec.js";
import { type Issue, IssueList } from "../issues.js";
import { landmarkSide, SIDES_MODES, type SidesMode, sidesPlan } from "../sides.js";
import {
  concreteNames,
  isTopologyName,
  landmarkExists,
  parseLandmarkName,
  scalePairs,
  TOPOLOGY_NAMES,
  type TopologyName,
} from "../topology.js";
import { readForm, readHold, readRepetition, readTracking } from "./read-behaviour.js";
import { readPhases } from "./read-phases.js";
import { DEFAULT_SMOOTHING, readSignals, readSmoothing } from "./read-signals.js";
import { at, Reader } from "./reader.js";
import { parseYaml } from "./yaml-tree.js";

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

  const versionNode = k.get("movespec")?.value;
  if (!versionNode) {
    issues.error(
      "VERSION_MISSING",
      "the MoveSpec must start with 'movespec: 1' (the language version)",
      { pos: root.pos, path: "movespec" },
    );
  } else if (!(versionNode.kind === "scalar" && versionNode.value === 1)) {
    issues.error(
      "VERSION_UNSUPPORTED",
      "this loader understands 'movespec: 1' only",
      at(versionNode),
    );
  }
  const name = r.string(r.required(k, "name", root, "the MoveSpec"), "name", { maxLength: 120 });
  if (name !== undefined && name.trim() === "")
    issues.error("VALUE_INVALID", "name must not be empty", at(k.get("name")!.value));
  const description = k.has("description")
    ? r.string(k.get("description")!.value, "description", { maxLength: 2000 })
    : "";
  const tags: string[] = [];
  if (k.has("tags")) {
    for (const t of r.names(k.get("tags")!.value, "tags") ?? []) {
      if (t.name.length > 40)
        issues.error("VALUE_INVALID", "a tag is at most 40 characters", at(t.node));
      else tags.push(t.name);
    }
  }
  const camera: { view: CameraView; aspectRatio: number } = { view: "any", aspectRatio: 16 / 9 };
  if (k.has("camera")) {
    const cm = r.map(k.get("camera")!.value, "camera");
    if (cm) {
      const ck = r.keys(cm, ["view", "aspect_ratio"], "camera");
      if (ck.has("view"))
        camera.view =
          r.oneOf(ck.get("view")!.value, "camera.view", ["front", "side", "any"] as const) ?? "any";
      if (ck.has("aspect_ratio")) {
        const a = ck.get("aspect_ratio")!.value;
        const ratio = a.kind === "scalar" ? parseAspectRatio(a.value) : undefined;
        if (ratio === undefined)
          issues.error(
            "VALUE_INVALID",
            "camera.aspect_ratio must be like 16:9, 4:3 or 1.777",
            at(a),
          );
        else camera.aspectRatio = ratio;
      }
    }
  }
  const sides: SidesMode = k.has("sides")
    ? (r.oneOf(k.get("sides")!.value, "sides", SIDES_MODES) ?? "none")
    : "none";
  const scale = k.has("scale")
    ? (r.oneOf(k.get("scale")!.value, "scale", ["torso", "shoulders", "hips"] as const) ?? "torso")
    : "torso";
  const globalSmoothing = k.has("smoothing")
    ? (readSmoothing(r, k.get("smoothing")!.value, "smoothing") ?? DEFAULT_SMOOTHING)
    : DEFAULT_SMOOTHING;

  const signalsNode = r.required(k, "signals", root, "the MoveSpec");
  const sig = readSignals(r, signalsNode, globalSmoothing, parsed.position);
  const phaseSources = readPhases(
    r,
    r.required(k, "phases", root, "the MoveSpec"),
    sig.signals,
    parsed.position,
    sig.declared,
  );
  const phases = phaseSources.map((p) => p.def);
  const phasesNode = k.get("phases")?.value;
  const phasesComplete =
    phasesNode?.kind === "map" && phaseSources.length === phasesNode.entries.length;
  const repetition =
    k.has("repetition") && phasesComplete
      ? readRepetition(r, k.get("repetition")!.value, phases, sig.signals, parsed.position)
      : undefined;
  const hold =
    k.has("hold") && phasesComplete ? readHold(r, k.get("hold")!.value, phases) : undefined;
  const form =
    k.has("form") && phasesComplete
      ? readForm(r, k.get("form")!.value, phases, sig.signals, parsed.position)
      : [];
  if (!k.has("repetition") && !k.has("hold")) {
    issues.error(
      "NOTHING_TO_DETECT",
      "the MoveSpec needs a 'repetition' (to count) or a 'hold' (to time), or both",
      { pos: root.pos },
    );
  }

  // Signals used by phases, rules and the start condition; metrics default to the cycle's.
  const signalNames = new Set(sig.signals.map((s) => s.name));
  const metrics: string[] = [];
  if (k.has("metrics")) {
    for (const m of r.names(k.get("metrics")!.value, "metrics") ?? []) {
      if (!signalNames.has(m.name))
        issues.error("UNKNOWN_SIGNAL", `metrics names the unknown signal '${m.name}'`, at(m.node));
      else if (!metrics.includes(m.name)) metrics.push(m.name);
    }
  } else if (repetition) {
    for (const i of new Set(repetition.cycle))
      for (const s of phases[i].signals)
        if (!s.includes(".") && !metrics.includes(s)) metrics.push(s);
  }
  const scoring: CompiledSpec["scoring"] =
    readScoring(r, k.get("scoring")?.value, signalNames) ?? {};

  // Which signals are needed, transitively.
  const used = new Set<string>();
  const mark = (ref: string) => used.add(ref.includes(".") ? ref.split(".")[1] : ref);
  for (const p of phases) p.signals.forEach(mark);
  for (const f of form) f.signals.forEach(mark);
  metrics.forEach(mark);
  if (scoring.depth) mark(scoring.depth.signal);
  if (repetition?.start.when) signalRefs(repetition.start.when).forEach(mark);
  for (const s of [...sig.signals].reverse())
    if (used.has(s.name)) signalRefs(s.expr).forEach(mark);
  for (const s of sig.signals) {
    if (!used.has(s.name)) {
      issues.warn(
        "SIGNAL_UNUSED",
        `the signal '${s.name}' is not used by any phase, rule or metric`,
        { path: `signals.${s.name}`, pos: findKeyPos(signalsNode, s.name) },
      );
    }
  }
  // Phases no cycle, hold, start or rule uses.
  phaseSources.forEach((p, i) => {
    const inUse =
      repetition?.cycle.includes(i) ||
      hold?.phase === i ||
      form.some((f) => f.during.phases.includes(i));
    if (!inUse && (repetition || hold))
      issues.warn(
        "PHASE_UNUSED",
        `the phase '${p.def.name}' is not used by the repetition cycle, the hold or a form rule`,
        { pos: p.pos, path: p.path },
      );
  });

  // Sides and landmarks. With sides none, a side-relative signal may only be read with its side
  // named (left.knee_angle).
  const sided = new Set(sig.signals.filter((s) => s.sided).map((s) => s.name));
  const rootRefs = [
    ...phases.flatMap((p) => [...signalRefs(p.enter), ...signalRefs(p.stay)]),
    ...form.flatMap((f) => signalRefs(f.when)),
    ...(repetition?.start.when ? signalRefs(repetition.start.when) : []),
    ...metrics,
    ...(scoring.depth ? [scoring.depth.signal] : []),
  ];
  const anySided = rootRefs.some((ref) => sided.has(ref));
  if (anySided && sides === "none") {
    const first = rootRefs.find((ref) => sided.has(ref))!;
    issues.error(
      "SIDE_REQUIRED",
      `the signal '${first}' depends on the side (it uses a landmark such as knee rather than left_knee): set 'sides' (${SIDES_MODES.filter((m) => m !== "none").join(", ")}), or read it as left.${first} / right.${first}`,
      { path: `signals.${first}`, pos: findKeyPos(signalsNode, first) },
    );
  }
  if (!anySided && sides !== "none" && k.has("sides") && sided.size === 0) {
    issues.warn(
      "SIDES_UNUSED",
      `sides is '${sides}' but no signal uses a side-relative landmark (knee, elbow, ...)`,
      at(k.get("sides")!.value),
    );
  }
  const landmarkNames = new Set<string>();
  for (const s of sig.signals)
    if (used.has(s.name)) for (const l of sig.landmarks.get(s.name) ?? []) landmarkNames.add(l);
  // The gate defaults to the landmarks the signals read; the body scale's own landmarks only
  // need to be in the topology (the scale holds its last value while they are hidden).
  const tracking = readTracking(r, k.get("tracking")?.value, [...landmarkNames]);
  if (sig.usesScale)
    for (const pair of scalePairs(scale)) for (const l of pair) landmarkNames.add(l);
  const concrete = new Set<string>();
  for (const side of sidesPlan(sides).evaluated) {
    for (const l of [...landmarkNames, ...(tracking?.landmarks ?? [])]) {
      const ref = parseLandmarkName(l);
      if (ref) for (const c of concreteNames(ref, landmarkSide(side))) concrete.add(c);
    }
  }
  let topologies: TopologyName[] = TOPOLOGY_NAMES.filter((t) =>
    [...concrete].every((c) => landmarkExists(t, c)),
  );
  if (k.has("topologies")) {
    const declared: TopologyName[] = [];
    for (const t of r.names(k.get("topologies")!.value, "topologies") ?? []) {
      if (!isTopologyName(t.name)) {
        issues.error(
          "VALUE_INVALID",
          `unknown topology '${t.name}' (known: ${TOPOLOGY_NAMES.join(", ")})`,
          at(t.node),
        );
        continue;
      }
      const missing = [...concrete].filter((c) => !landmarkExists(t.name as TopologyName, c));
      if (missing.length > 0) {
        issues.error(
          "LANDMARK_NOT_IN_TOPOLOGY",
          `${t.name} has no ${missing.join(", ")}`,
          at(t.node),
        );
        continue;
      }
      declared.push(t.name);
    }
    topologies = declared;
  } else if (topologies.length === 0 && concrete.size > 0) {
    issues.error(
      "LANDMARK_NOT_IN_TOPOLOGY",
      `no built-in topology has all of ${[...concrete].join(", ")}`,
      { pos: root.pos, path: "signals" },
    );
  }

  const references = readReferences(r, k.get("references")?.value);
  if (name === undefined || !tracking || issues.errors.length > 0) return undefined;
  return {
    movespec: 1,
    name,
    description: description ?? "",
    tags,
    camera,
    topologies,
    sides,
    scale,
    tracking,
    signals: sig.signals.filter((s) => used.has(s.name)),
    phases,
    repetition,
    hold,
    form,
    metrics,
    scoring,
    references,
  };
}

import { signalRefs } from "../expression/refs.js";
import type { YNode } from "./yaml-tree.js";

function findKeyPos(node: YNode | undefined, key: string) {
  return node?.kind === "map" ? node.entries.find((e) => e.key === key)?.keyPos : undefined;
}

function readScoring(
  r: Reader,
  node: YNode | undefined,
  signals: Set<string>,
): CompiledSpec["scoring"] | undefined {
  const m = r.map(node, "scoring");
  if (!m) return undefined;
  const k = r.keys(m, ["depth"], "scoring");
  const d = r.map(k.get("depth")?.value, "scoring.depth");
  if (!d) return {};
  const dk = r.keys(d, ["signal", "from", "to", "weight"], "scoring.depth");
  const signal = r.string(r.required(dk, "signal", d, "scoring.depth"), "scoring.depth.signal");
  const from = r.number(r.required(dk, "from", d, "scoring.depth"), "scoring.depth.from");
  const to = r.number(r.required(dk, "to", d, "scoring.depth"), "scoring.depth.to");
  const weight = dk.has("weight")
    ? r.number(dk.get("weight")!.value, "scoring.depth.weight", { min: 0, max: 100 })
    : 30;
  if (signal === undefined || from === undefined || to === undefined || weight === undefined)
    return undefined;
  if (!signals.has(signal)) {
    r.issues.error(
      "UNKNOWN_SIGNAL",
      `scoring.depth names the unknown signal '${signal}'`,
      at(dk.get("signal")!.value),
    );
    return undefined;
  }
  if (from === to) {
    r.issues.error("VALUE_INVALID", "scoring.depth.from and to must differ", at(d));
    return undefined;
  }
  return { depth: { signal, from, to, weight } };
}

function readReferences(r: Reader, node: YNode | undefined): ReferenceRecording[] {
  const out: ReferenceRecording[] = [];
  for (const item of r.list(node, "references") ?? []) {
    const m = r.map(item, "a reference recording");
    if (!m) continue;
    const k = r.keys(m, ["recording", "expected_count", "topology"], "a reference recording");
    const recording = r.string(
      r.required(k, "recording", m, "a reference recording"),
      "recording",
      { maxLength: 500 },
    );
    const expected = k.has("expected_count")
      ? r.number(k.get("expected_count")!.value, "expected_count", { min: 0, integer: true })
      : undefined;
    const topology = k.has("topology")
      ? r.oneOf(k.get("topology")!.value, "topology", TOPOLOGY_NAMES)
      : undefined;
    if (recording === undefined) continue;
    const ref: { recording: string; expectedCount?: number; topology?: TopologyName } = {
      recording,
    };
    if (expected !== undefined) ref.expectedCount = expected;
    if (topology !== undefined) ref.topology = topology;
    out.push(ref);
  }
  return out;
}
