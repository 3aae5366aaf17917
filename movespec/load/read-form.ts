/** Reads `form`: the form rules, each a fault condition with a message, a severity and a penalty. */
import type { FormRuleDef, FormSeverity } from "../compiled-spec.js";
import type { Position } from "../issues.js";
import { checkPhaseName, type PhaseNames, phaseIndex } from "./phase-ref.js";
import { readCondition } from "./read-phases.js";
import { at, IDENTIFIER, type Reader } from "./reader.js";
import type { YNode } from "./yaml-tree.js";

const FORM_PENALTY: Record<FormSeverity, number> = { info: 5, warning: 15, error: 40 };

export function readForm(
  r: Reader,
  node: YNode | undefined,
  phases: PhaseNames,
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
    // Every key is read, so that each mistake is reported in one pass.
    const id = readId(r, r.required(k, "id", m, "a form rule"), ids);
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
    const rule = id === undefined ? `form rule ${index + 1}` : `form rule '${id}'`;
    const during = readDuring(r, k.get("during")?.value, phases, rule);
    const severity = k.has("severity")
      ? r.oneOf(k.get("severity")!.value, "severity", ["info", "warning", "error"] as const)
      : "warning";
    const forSeconds = k.has("for")
      ? r.duration(k.get("for")!.value, `${rule} for`, { max: 60, usually: "short" })
      : 0;
    const cooldown = k.has("cooldown") ? r.duration(k.get("cooldown")!.value, "cooldown") : 2;
    const voidsRep = k.has("voids_rep") ? r.boolean(k.get("voids_rep")!.value, "voids_rep") : false;
    const penalty = k.has("penalty")
      ? r.number(k.get("penalty")!.value, "penalty", { min: 0, max: 100 })
      : severity && FORM_PENALTY[severity];
    if (
      id === undefined ||
      message === undefined ||
      !when ||
      !during ||
      severity === undefined ||
      forSeconds === undefined ||
      cooldown === undefined ||
      voidsRep === undefined ||
      penalty === undefined
    )
      return;
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

/** A rule's id: an identifier no earlier rule has. */
function readId(r: Reader, node: YNode | undefined, ids: Set<string>): string | undefined {
  const id = r.string(node, "form rule id");
  if (id === undefined) return undefined;
  if (!IDENTIFIER.test(id)) {
    r.issues.error(
      "NAME_INVALID",
      `form rule id '${id}' must be lower case letters, digits and _`,
      at(node!),
    );
    return undefined;
  }
  if (ids.has(id)) {
    r.issues.error("DUPLICATE_ID", `two form rules have the id '${id}'`, at(node!));
    return undefined;
  }
  ids.add(id);
  return id;
}

/** When a rule applies: `rep` (default: during a repetition), `always`, or a list of phases. */
function readDuring(
  r: Reader,
  d: YNode | undefined,
  phases: PhaseNames,
  rule: string,
): FormRuleDef["during"] | undefined {
  if (!d) return { kind: "rep", phases: [] };
  if (d.kind === "scalar" && (d.value === "rep" || d.value === "always"))
    return { kind: d.value, phases: [] };
  const names = r.names(d, "form rule during");
  if (!names) return undefined;
  const idx: number[] = [];
  let ok = true;
  for (const { name, node: n } of names) {
    const i = checkPhaseName(r, phases, name, n, `${rule} during`)
      ? phaseIndex(phases, name)
      : undefined;
    if (i === undefined) ok = false;
    else idx.push(i);
  }
  return ok ? { kind: "phases", phases: idx } : undefined;
}
