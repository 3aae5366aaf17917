/** Units of signals as people read them, for stats and plot axes. */
import type { CompiledSpec, SignalUnit } from "../compiled-spec.js";

const SCALE_WORDS: Record<CompiledSpec["scale"], string> = {
  torso: "torso lengths",
  shoulders: "shoulder widths",
  hips: "hip widths",
  height: "body heights",
};

export function unitLabel(unit: SignalUnit | undefined, scale: CompiledSpec["scale"]): string {
  switch (unit) {
    case "deg":
      return "degrees";
    case "deg/s":
      return "degrees/s";
    case "scale":
      return SCALE_WORDS[scale];
    case "scale/s":
      return `${SCALE_WORDS[scale]}/s`;
    case "fraction":
      return "0..1";
    case "ratio":
      return "ratio";
    default:
      return "";
  }
}

/** `knees (degrees)` for a slot name such as `knees` or `left.knee_angle`. */
export function signalTitle(spec: CompiledSpec, slot: string): string {
  const base = slot.includes(".") ? slot.split(".")[1] : slot;
  const def = (spec.declaredSignals ?? spec.signals).find((s) => s.name === base);
  const unit = unitLabel(def?.unit, spec.scale);
  return unit ? `${slot} (${unit})` : slot;
}

/** A value with as many decimals as its size deserves: 172.4, 0.412. */
export function formatValue(v: number): string {
  if (!Number.isFinite(v)) return "-";
  const a = Math.abs(v);
  return v.toFixed(a >= 100 ? 1 : a >= 10 ? 2 : 3);
}
