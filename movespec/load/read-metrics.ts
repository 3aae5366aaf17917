/** Reads what is reported per repetition: `metrics` and `scoring`. */
import type { CompiledSpec, PhaseDef, RepetitionDef } from "../compiled-spec.js";
import { at, type Reader } from "./reader.js";
import type { YNode } from "./yaml-tree.js";

/**
 * The metric signals; by default those the cycle's phases compare (unqualified). A signal that
 * depends on the side may be named with its side (`right.knee_lift`), as in a condition: that
 * side is reported whatever side the repetition was on.
 */
export function readMetrics(
  r: Reader,
  node: YNode | undefined,
  signalNames: ReadonlySet<string>,
  /** Signals read without error that do not depend on the side. */
  unsided: ReadonlySet<string>,
  phases: readonly PhaseDef[],
  repetition: RepetitionDef | undefined,
): string[] {
  const metrics: string[] = [];
  if (node) {
    for (const m of r.names(node, "metrics") ?? []) {
      const [side, base] = m.name.includes(".") ? m.name.split(".", 2) : [undefined, m.name];
      if (!signalNames.has(base) || (side !== undefined && side !== "left" && side !== "right"))
        r.issues.error(
          "UNKNOWN_SIGNAL",
          `metrics names the unknown signal '${m.name}'`,
          at(m.node),
        );
      else if (side !== undefined && unsided.has(base))
        r.issues.error(
          "VALUE_INVALID",
          `metrics names '${m.name}', but '${base}' does not depend on the side: name it '${base}'`,
          at(m.node),
        );
      else if (!metrics.includes(m.name)) metrics.push(m.name);
    }
  } else if (repetition) {
    for (const i of new Set(repetition.cycle))
      for (const s of phases[i].signals)
        if (!s.includes(".") && !metrics.includes(s)) metrics.push(s);
  }
  return metrics;
}

export function readScoring(
  r: Reader,
  node: YNode | undefined,
  signals: ReadonlySet<string>,
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
