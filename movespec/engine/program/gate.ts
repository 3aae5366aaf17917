/**
 * The tracking gate's point slots per evaluated side, with their names for tracking.lost. Without
 * a side (`sides: none`), a side-relative gate landmark (`hip`) is a pair: either side will do.
 */
import type { CompiledSpec } from "../../compiled-spec.js";
import { landmarkSide, type SideKey } from "../../sides.js";
import { concreteNames, parseLandmarkName, pointName } from "../../topology.js";
import type { PointTable } from "./points.js";

export interface Gate {
  gatePoints: Record<SideKey, number[]>;
  gateNames: Record<SideKey, string[]>;
  /** Without a side: pairs of point slots of which at least one must be visible. */
  gateEither: [number, number][];
  gateEitherNames: string[];
}

export function gateLandmarks(
  spec: CompiledSpec,
  evaluated: readonly SideKey[],
  points: PointTable,
): Gate {
  const gate: Gate = {
    gatePoints: { none: [], left: [], right: [] },
    gateNames: { none: [], left: [], right: [] },
    gateEither: [],
    gateEitherNames: [],
  };
  for (const side of evaluated) {
    for (const name of spec.tracking.landmarks) {
      const ref = parseLandmarkName(name)!;
      if ((ref.kind === "sided" || ref.kind === "opposite") && side === "none") {
        gate.gateEither.push([points.landmark(name, "left"), points.landmark(name, "right")]);
        gate.gateEitherNames.push(
          ["left", "right"].map((s) => concreteNames(ref, s as "left" | "right")).join(" or "),
        );
        continue;
      }
      gate.gatePoints[side].push(points.landmark(name, side));
      gate.gateNames[side].push(pointName(concreteNames(ref, landmarkSide(side))));
    }
  }
  return gate;
}
