/** Reads `hold`: a phase held for a target time, with a grace period and progress events. */
import type { HoldDef } from "../compiled-spec.js";
import { checkPhaseName, type PhaseNames, phaseIndex } from "./phase-ref.js";
import { at, type Reader } from "./reader.js";
import type { YNode } from "./yaml-tree.js";

export function readHold(
  r: Reader,
  node: YNode | undefined,
  phases: PhaseNames,
): HoldDef | undefined {
  const m = r.map(node, "hold");
  if (!m) return undefined;
  const k = r.keys(m, ["phase", "target", "grace", "progress_every"], "hold");
  const phaseNode = r.required(k, "phase", m, "hold");
  const targetNode = r.required(k, "target", m, "hold");
  const name = r.string(phaseNode, "hold.phase");
  const phase =
    name !== undefined && checkPhaseName(r, phases, name, phaseNode!, "hold.phase")
      ? phaseIndex(phases, name)
      : undefined;
  const target = r.duration(targetNode, "hold.target");
  const grace = k.has("grace")
    ? r.duration(k.get("grace")!.value, "hold.grace", { max: 60, usually: "short" })
    : 0.5;
  const progressEvery = k.has("progress_every")
    ? r.duration(k.get("progress_every")!.value, "hold.progress_every")
    : 5;
  if (target !== undefined && target <= 0)
    r.issues.error("VALUE_INVALID", "hold.target must be longer than 0 s", at(targetNode!));
  if (
    phase === undefined ||
    target === undefined ||
    target <= 0 ||
    grace === undefined ||
    progressEvery === undefined
  )
    return undefined;
  return { phase, target, grace, progressEvery };
}
