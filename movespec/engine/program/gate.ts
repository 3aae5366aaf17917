/** The tracking gate's point slots per evaluated side, with their names for tracking.lost. */
import type { CompiledSpec } from "../../compiled-spec.js";
import { landmarkSide, type SideKey } from "../../sides.js";
import { concreteNames, parseLandmarkName } from "../../topology.js";
import type { PointTable } from "./points.js";

export function gateLandmarks(
  spec: CompiledSpec,
  evaluated: readonly SideKey[],
  points: PointTable,
): { gatePoints: Record<SideKey, number[]>; gateNames: Record<SideKey, string[]> } {
  const gatePoints: Record<SideKey, number[]> = { none: [], left: [], right: [] };
  const gateNames: Record<SideKey, string[]> = { none: [], left: [], right: [] };
  for (const side of evaluated) {
    for (const name of spec.tracking.landmarks) {
      const ref = parseLandmarkName(name)!;
      if (ref.kind === "sided" && side === "none") continue;
      gatePoints[side].push(points.landmark(name, side));
      gateNames[side].push(concreteNames(ref, landmarkSide(side)).join("+"));
    }
  }
  return { gatePoints, gateNames };
}
