/**
 * Form rules: a fault condition that held for `for` during the rule's phases (or the repetition,
 * or always) emits form.violation, at most once per cooldown; during a repetition it also costs
 * the rule's penalty once and may void the repetition.
 */
import { anySide } from "./conditions.js";
import type { FrameFacts } from "./frame-facts.js";
import { EPS, type Machine } from "./machine.js";
import { envelope, values } from "./report.js";

export function updateForm(m: Machine, f: FrameFacts): void {
  const s = m.state;
  const rules = m.spec.form;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i];
    const applies =
      rule.during.kind === "always" ||
      (rule.during.kind === "rep" ? s.inRep : s.phase >= 0 && rule.during.phases.includes(s.phase));
    if (!applies || !anySide(m, m.formWhen[i].bySide, f, false)) {
      s.formSince[i] = null;
      continue;
    }
    const since = s.formSince[i] ?? f.t;
    s.formSince[i] = since;
    if (f.t - since < rule.for - EPS) continue;
    // The cooldown limits the events only: a fault within it still costs the repetition in
    // progress its penalty and, with voids_rep, the repetition itself.
    if (s.inRep) {
      if (!s.violations.includes(rule.id)) {
        s.violations.push(rule.id);
        s.penalty += rule.penalty;
      }
      if (rule.voidsRep) s.voided = true;
    }
    if (f.t < s.formCooldownUntil[i]) continue;
    s.formCooldownUntil[i] = f.t + rule.cooldown;
    const side =
      m.combine === "either"
        ? s.inRep
          ? s.repSide
          : s.phaseSide
        : m.combine === "auto"
          ? s.autoSide
          : 0;
    const ev: Record<string, unknown> & { type: "form.violation" } = {
      type: "form.violation",
      ...envelope(m, f, side),
      rule: rule.id,
      severity: rule.severity,
      message: rule.message,
    };
    if (s.inRep) ev.rep = s.count + 1;
    ev.values = values(m, m.formSlots[i], side);
    m.emit(ev);
  }
}
