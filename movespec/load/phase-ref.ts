import type { PhaseDef } from "../compiled-spec.js";
import { at, type Reader, suggestion } from "./reader.js";
import type { YNode } from "./yaml-tree.js";

/** The index of the phase a cycle, hold, start or rule names; UNKNOWN_PHASE if none. */
export function phaseIndex(
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
