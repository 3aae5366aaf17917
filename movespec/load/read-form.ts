/** Reads `form`: the form rules, each a fault condition with a message, a severity and a penalty. */
import type { FormRuleDef, FormSeverity, PhaseDef } from "../compiled-spec.js";
import type { Position } from "../issues.js";
import { phaseIndex } from "./phase-ref.js";
import { readCondition } from "./read-phases.js";
import { at, IDENTIFIER, type Reader } from "./reader.js";
import type { YNode } from "./yaml-tree.js";

const FORM_PENALTY: Record<FormSeverity, number> = { info: 5, warning: 15, error: 40 };

export function readForm(
  r: Reader,
  node: YNode | undefined,
  phases: readonly PhaseDef[],
  /** Every declared signal, including ones that failed (already reported). */
  signalNames: ReadonlySet<string>,
  position: (offset: number) => Position,
): FormRuleDef[] {
  const out: FormRuleDef[] = [];
  const items = r.list(node, "form");
  if (!items) return out;
  const ids = new Set<string>();
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
    const during = readDuring(r, k.get("during")?.value, phases, id);
    if (!during) return;
    const severity = k.has("severity")
      ? r.oneOf(k.get("severity")!.value, "severity", ["info", "warning", "error"] as const)
      : "warning";
    const forSeconds = k.has("for")
      ? r.duration(k.get("for")!.value, `form rule '${id}' for`, { max: 60, usually: "short" })
      : 0;
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

/** When a rule applies: `rep` (default: during a repetition), `always`, or a list of phases. */
function readDuring(
  r: Reader,
  d: YNode | undefined,
  phases: readonly PhaseDef[],
  id: string,
): FormRuleDef["during"] | undefined {
  if (!d) return { kind: "rep", phases: [] };
  if (d.kind === "scalar" && (d.value === "rep" || d.value === "always"))
    return { kind: d.value, phases: [] };
  const names = r.names(d, "form rule during");
  if (!names) return undefined;
  const idx: number[] = [];
  for (const { name, node: n } of names) {
    const i = phaseIndex(r, phases, name, n, `form rule '${id}' during`);
    if (i === undefined) return undefined;
    idx.push(i);
  }
  return { kind: "phases", phases: idx };
}
