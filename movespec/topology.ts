/**
 * Built-in pose topologies and the logical landmark names a MoveSpec uses.
 *
 * A MoveSpec names landmarks logically: `knee` (the side being evaluated), `left_knee` /
 * `right_knee` (a fixed side), `mid_knee` (midpoint of both sides) or a central landmark such as
 * `nose`. This file resolves those names to keypoint indices for each topology.
 */

export type TopologyName = "blazepose-33" | "coco-17";
export const TOPOLOGY_NAMES: readonly TopologyName[] = ["blazepose-33", "coco-17"];

const BLAZEPOSE_33 = [
  "nose",
  "left_eye_inner",
  "left_eye",
  "left_eye_outer",
  "right_eye_inner",
  "right_eye",
  "right_eye_outer",
  "left_ear",
  "right_ear",
  "left_mouth",
  "right_mouth",
  "left_shoulder",
  "right_shoulder",
  "left_elbow",
  "right_elbow",
  "left_wrist",
  "right_wrist",
  "left_pinky",
  "right_pinky",
  "left_index",
  "right_index",
  "left_thumb",
  "right_thumb",
  "left_hip",
  "right_hip",
  "left_knee",
  "right_knee",
  "left_ankle",
  "right_ankle",
  "left_heel",
  "right_heel",
  "left_foot_index",
  "right_foot_index",
] as const;

const COCO_17 = [
  "nose",
  "left_eye",
  "right_eye",
  "left_ear",
  "right_ear",
  "left_shoulder",
  "right_shoulder",
  "left_elbow",
  "right_elbow",
  "left_wrist",
  "right_wrist",
  "left_hip",
  "right_hip",
  "left_knee",
  "right_knee",
  "left_ankle",
  "right_ankle",
] as const;

export interface Topology {
  readonly name: TopologyName;
  readonly keypointCount: number;
  /** Concrete landmark name (`left_knee`, `nose`) to keypoint index. */
  readonly index: ReadonlyMap<string, number>;
}

function makeTopology(name: TopologyName, names: readonly string[]): Topology {
  return { name, keypointCount: names.length, index: new Map(names.map((n, i) => [n, i])) };
}

export const TOPOLOGIES: Readonly<Record<TopologyName, Topology>> = {
  "blazepose-33": makeTopology("blazepose-33", BLAZEPOSE_33),
  "coco-17": makeTopology("coco-17", COCO_17),
};

/** Accepted aliases for concrete names (BlazePose calls its mouth points `mouth_left`). */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ["mouth_left", "left_mouth"],
  ["mouth_right", "right_mouth"],
]);

/** Side-relative names: `knee` means the left or right knee depending on the side evaluated. */
export const PAIRED_LANDMARKS: readonly string[] = [
  "eye_inner",
  "eye",
  "eye_outer",
  "ear",
  "mouth",
  "shoulder",
  "elbow",
  "wrist",
  "pinky",
  "index",
  "thumb",
  "hip",
  "knee",
  "ankle",
  "heel",
  "foot_index",
];
const PAIRED = new Set(PAIRED_LANDMARKS);
const CENTRAL = new Set(["nose"]);

export type Side = "left" | "right";

/** A landmark reference after parsing the name, before choosing a side or a topology. */
export type LandmarkRef =
  | { kind: "fixed"; name: string } // left_knee, nose
  | { kind: "sided"; base: string } // knee: follows the side evaluated
  | { kind: "opposite"; base: string } // opposite_knee: the other side's knee
  | { kind: "mid"; base: string }; // mid_knee: midpoint of left and right

/** Parses a landmark name; undefined when the name is not a landmark of any topology. */
export function parseLandmarkName(raw: string): LandmarkRef | undefined {
  const name = ALIASES.get(raw) ?? raw;
  if (CENTRAL.has(name)) return { kind: "fixed", name };
  if (PAIRED.has(name)) return { kind: "sided", base: name };
  if (name.startsWith("mid_") && PAIRED.has(name.slice(4)))
    return { kind: "mid", base: name.slice(4) };
  if (name.startsWith("opposite_") && PAIRED.has(name.slice(9)))
    return { kind: "opposite", base: name.slice(9) };
  for (const side of ["left_", "right_"]) {
    if (name.startsWith(side) && PAIRED.has(name.slice(side.length)))
      return { kind: "fixed", name };
  }
  return undefined;
}

/** Concrete landmark names a reference needs for a side ("none" for unsided contexts). */
export function concreteNames(ref: LandmarkRef, side: Side | undefined): string[] {
  switch (ref.kind) {
    case "fixed":
      return [ref.name];
    case "mid":
      return [`left_${ref.base}`, `right_${ref.base}`];
    case "sided":
      return side ? [`${side}_${ref.base}`] : [];
    case "opposite":
      return side ? [`${side === "left" ? "right" : "left"}_${ref.base}`] : [];
  }
}

/**
 * The name of the point concrete landmarks make (`left_knee`, or `left_hip+right_hip` for a
 * midpoint): the engine's point table keys its slots by it, and the loader and the tracking gate
 * speak of points by it.
 */
export function pointName(concrete: readonly string[]): string {
  return concrete.join("+");
}

export function landmarkExists(topology: TopologyName, concrete: string): boolean {
  return TOPOLOGIES[topology].index.has(concrete);
}

export function isTopologyName(value: unknown): value is TopologyName {
  return value === "blazepose-33" || value === "coco-17";
}

/**
 * Landmark pairs whose distance is the body scale; the scale is the mean over the pairs whose
 * landmarks are both visible (so a torso seen from the side still has a length). `height` (the
 * vertical extent of every visible keypoint) needs no particular landmark.
 */
export function scalePairs(scale: "torso" | "shoulders" | "hips" | "height"): [string, string][] {
  if (scale === "height") return [];
  if (scale === "torso") {
    return [
      ["left_shoulder", "left_hip"],
      ["right_shoulder", "right_hip"],
    ];
  }
  if (scale === "shoulders") return [["left_shoulder", "right_shoulder"]];
  return [["left_hip", "right_hip"]];
}
