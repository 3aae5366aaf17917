/**
 * What `run` says about the start of counting, which is engine state rather than events: when
 * nothing could be counted because the start condition was never met, which part of it failed
 * (the cycle's first phase never entered, with the nearest its signals came to entering it; or
 * not held for `start.for`; or `start.when` never held); and when counting began late, that a
 * repetition before then was not counted.
 */
import type { CompiledSpec } from "../compiled-spec.js";
import type { Expr } from "../expression/ast.js";
import { formatValue } from "../plot/units.js";

/** A `signal <op> number` of the start phase's enter condition, and how near it came. */
interface Threshold {
  readonly signal: string;
  readonly op: "<" | "<=" | ">" | ">=";
  readonly value: number;
  /** The value closest to holding (lowest for < and <=, highest for > and >=) and when. */
  nearest?: { value: number; slot: string; t: number };
}

export interface StartWatch {
  /** One frame: its time, the engine's signalValues(), currentPhases() and startConditionMet(). */
  frame(
    t: number,
    values: Record<string, number>,
    phases: readonly string[],
    met: readonly boolean[],
  ): void;
  /** Notes for the end of the run (none when there is nothing to say). */
  notes(): string[];
}

/** Counting that begins later than this after the first frame (beyond start.for) is noted. */
const LATE_START_SECONDS = 1;

export function startWatch(spec: CompiledSpec): StartWatch {
  const rep = spec.repetition;
  if (!rep) return { frame() {}, notes: () => [] };
  const startPhase = spec.phases[rep.start.phase].name;
  const cyclePhases = new Set(rep.cycle.map((i) => spec.phases[i].name));
  const thresholds = comparisons(spec.phases[rep.start.phase].enter);
  let firstT: number | undefined;
  let metAt: number | undefined;
  /** Other phases of the cycle entered before counting began, with when first. */
  const before = new Map<string, number>();
  let inStartSince: number | undefined;
  let longestInStart = -1;
  return {
    frame(t, values, phases, met) {
      firstT ??= t;
      if (metAt !== undefined) return;
      if (met.some(Boolean)) {
        metAt = t;
        return;
      }
      const phase = phases[0] ?? "";
      if (phase === startPhase) {
        inStartSince ??= t;
        longestInStart = Math.max(longestInStart, t - inStartSince);
      } else {
        inStartSince = undefined;
        if (phase !== "" && cyclePhases.has(phase) && !before.has(phase)) before.set(phase, t);
      }
      for (const threshold of thresholds) nearer(threshold, values, t);
    },
    notes() {
      if (firstT === undefined) return [];
      if (metAt === undefined) return [neverMet()];
      const late = metAt - firstT > rep.start.for + LATE_START_SECONDS;
      if (before.size === 0 && !late) return [];
      const earlier = [...before].map(([phase, t]) => `'${phase}' at t=${t.toFixed(2)}s`);
      return [
        `note: counting began at t=${metAt.toFixed(2)}s, when the start condition was first met (${startText()})${earlier.length ? `; before it the recording entered ${earlier.join(", ")}` : `, ${(metAt - firstT).toFixed(2)} s into the recording`}: a repetition before then is not counted`,
      ];
    },
  };

  function startText(): string {
    const { start } = rep!;
    return start.for > 0 || start.when
      ? `in '${startPhase}' for ${start.for} s${start.when ? " while its 'when' holds" : ""}`
      : `'${startPhase}' entered: without 'start', repetitions count once the cycle's first phase is entered`;
  }

  function neverMet(): string {
    const { start } = rep!;
    if (longestInStart < 0) {
      const near = thresholds
        .map((th) =>
          th.nearest
            ? `${th.nearest.slot} came nearest at ${formatValue(th.nearest.value)} (t=${th.nearest.t.toFixed(2)}s; it enters at ${th.signal} ${th.op} ${formatValue(th.value)})`
            : `${th.signal} had no value (its landmarks were not seen)`,
        )
        .join("; ");
      return `note: nothing could be counted: the cycle's first phase '${startPhase}' was never entered${near ? `: ${near}` : ""}. Repetitions count only once it has been${start.for > 0 ? ` (for ${start.for} s)` : ""}; see -v and --stats`;
    }
    if (longestInStart + 1e-9 < start.for)
      return `note: nothing could be counted: the start condition was never met: '${startPhase}' was entered but held at most ${longestInStart.toFixed(2)} s of the ${start.for} s that start.for asks; see -v and --stats`;
    return `note: nothing could be counted: the start condition was never met: '${startPhase}' was held ${longestInStart.toFixed(2)} s but never ${start.for} s while start.when held; see -v and --stats`;
  }
}

/** Every `signal <op> number` (or `number <op> signal`, turned round) in a condition. */
function comparisons(e: Expr): Threshold[] {
  const out: Threshold[] = [];
  const flip = { "<": ">", "<=": ">=", ">": "<", ">=": "<=" } as const;
  const visit = (x: Expr) => {
    if (x.kind === "compare") {
      if (x.left.kind === "ref" && x.right.kind === "num")
        out.push({ signal: refName(x.left), op: x.op, value: x.right.value });
      else if (x.right.kind === "ref" && x.left.kind === "num")
        out.push({ signal: refName(x.right), op: flip[x.op], value: x.left.value });
    } else if (x.kind === "and" || x.kind === "or") {
      visit(x.left);
      visit(x.right);
    }
  };
  visit(e);
  return out;
}

function refName(ref: Expr & { kind: "ref" }): string {
  return ref.side ? `${ref.side}.${ref.name}` : ref.name;
}

/** Keeps the value of the threshold's signal (any side, unless it names one) closest to holding. */
function nearer(th: Threshold, values: Record<string, number>, t: number): void {
  const below = th.op === "<" || th.op === "<=";
  for (const slot of [th.signal, `left.${th.signal}`, `right.${th.signal}`]) {
    const v = values[slot];
    if (v === undefined || Number.isNaN(v)) continue;
    const best = th.nearest?.value;
    if (best === undefined || (below ? v < best : v > best)) th.nearest = { value: v, slot, t };
  }
}
