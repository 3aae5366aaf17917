import type { PhaseDef } from "../compiled-spec.js";
import { at, type Reader, suggestion } from "./reader.js";
import type { YNode } from "./yaml-tree.js";

/** The phases that a cycle, hold, start or rule can name. */
export interface PhaseNames {
  /** The phases read without errors, in document order. */
  readonly defs: readonly PhaseDef[];
  /**
   * Every name written under `phases`, including those of phases that failed (already reported):
   * naming one is not a second mistake. Undefined when `phases` is missing or not a mapping, so
   * that no name can be said to be undefined.
   */
  readonly declared: ReadonlySet<string> | undefined;
}

/**
 * Checks that the phase `name` is defined; UNKNOWN_PHASE if not. True when it is, or may be (a
 * phase that failed, or `phases` unreadable): the caller still checks what it can by name.
 */
export function checkPhaseName(
  r: Reader,
  phases: PhaseNames,
  name: string,
  node: YNode,
  what: string,
): boolean {
  if (phases.declared === undefined || phases.declared.has(name)) return true;
  r.issues.error(
    "UNKNOWN_PHASE",
    `${what} refers to the phase '${name}', which is not defined under phases${suggestion(
      name,
      phases.declared,
    )}`,
    at(node),
  );
  return false;
}

/**
 * The index of a phase already checked by name; undefined when that phase failed, which has
 * been reported where it is defined.
 */
export function phaseIndex(phases: PhaseNames, name: string): number | undefined {
  const i = phases.defs.findIndex((p) => p.name === name);
  return i < 0 ? undefined : i;
}
