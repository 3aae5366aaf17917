/**
 * The topologies a MoveSpec runs on: every built-in topology that has all the landmarks it
 * reads on the sides it evaluates, or the declared `topologies`, each checked for them.
 */

import type { CompiledSpec, TrackingDef } from "../compiled-spec.js";
import { landmarkSide, sidesPlan } from "../sides.js";
import {
  concreteNames,
  isTopologyName,
  landmarkExists,
  parseLandmarkName,
  scalePairs,
  TOPOLOGY_NAMES,
  type TopologyName,
} from "../topology.js";
import { at, type Reader } from "./reader.js";
import type { YMap, YNode } from "./yaml-tree.js";

export interface LandmarkUse {
  readonly sides: CompiledSpec["sides"];
  readonly scale: CompiledSpec["scale"];
  /** Landmark names (as written) the used signals read. */
  readonly landmarks: ReadonlySet<string>;
  /** Some used signal divides by the body scale, so its landmarks must exist too. */
  readonly usesScale: boolean;
  readonly tracking: TrackingDef | undefined;
}

export function resolveTopologies(
  r: Reader,
  declaredNode: YNode | undefined,
  root: YMap,
  use: LandmarkUse,
): TopologyName[] {
  const concrete = concreteLandmarks(use);
  const topologies = TOPOLOGY_NAMES.filter((t) => [...concrete].every((c) => landmarkExists(t, c)));
  if (declaredNode) return readDeclared(r, declaredNode, concrete);
  if (topologies.length === 0 && concrete.size > 0) {
    r.issues.error(
      "LANDMARK_NOT_IN_TOPOLOGY",
      `no built-in topology has all of ${[...concrete].join(", ")}`,
      { pos: root.pos, path: "signals" },
    );
  }
  return topologies;
}

/** Concrete landmark names (`left_knee`) needed on every evaluated side. */
function concreteLandmarks(use: LandmarkUse): Set<string> {
  const names = new Set(use.landmarks);
  // The body scale's landmarks only need to exist (the scale holds its value while hidden), so
  // they are not part of the tracking gate, but they are part of what a topology must have.
  if (use.usesScale) for (const pair of scalePairs(use.scale)) for (const l of pair) names.add(l);
  const concrete = new Set<string>();
  for (const side of sidesPlan(use.sides).evaluated) {
    for (const l of [...names, ...(use.tracking?.landmarks ?? [])]) {
      const ref = parseLandmarkName(l);
      if (!ref) continue;
      // Without a side, a side-relative landmark means either side: both must exist.
      const sidesOf =
        side === "none" && ref.kind !== "fixed" && ref.kind !== "mid"
          ? (["left", "right"] as const)
          : [landmarkSide(side)];
      for (const s of sidesOf) for (const c of concreteNames(ref, s)) concrete.add(c);
    }
  }
  return concrete;
}

function readDeclared(r: Reader, node: YNode, concrete: ReadonlySet<string>): TopologyName[] {
  const declared: TopologyName[] = [];
  const names = r.names(node, "topologies");
  if (names?.length === 0) {
    // Declared, but none: the MoveSpec would load and then run on nothing.
    r.issues.error(
      "VALUE_INVALID",
      `topologies must name at least one (known: ${TOPOLOGY_NAMES.join(", ")}), or be left out`,
      at(node),
    );
  }
  for (const t of names ?? []) {
    if (!isTopologyName(t.name)) {
      r.issues.error(
        "VALUE_INVALID",
        `unknown topology '${t.name}' (known: ${TOPOLOGY_NAMES.join(", ")})`,
        at(t.node),
      );
      continue;
    }
    const missing = [...concrete].filter((c) => !landmarkExists(t.name as TopologyName, c));
    if (missing.length > 0) {
      r.issues.error(
        "LANDMARK_NOT_IN_TOPOLOGY",
        `${t.name} has no ${missing.join(", ")}`,
        at(t.node),
      );
      continue;
    }
    declared.push(t.name);
  }
  return declared;
}
