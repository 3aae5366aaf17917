/** Reads `tracking`: the gate landmarks, their visibility threshold and what happens when lost. */
import type { TrackingDef } from "../compiled-spec.js";
import { parseLandmarkName } from "../topology.js";
import { at, type Reader } from "./reader.js";
import type { YMap, YNode } from "./yaml-tree.js";

export function readTracking(
  r: Reader,
  node: YNode | undefined,
  defaultLandmarks: readonly string[],
): TrackingDef | undefined {
  const def: {
    landmarks: string[];
    minVisibility: number;
    lostAfter: number;
    onLost: "pause" | "reset";
    resetAfter: number;
  } = {
    landmarks: [...defaultLandmarks],
    minVisibility: 0.5,
    lostAfter: 0.3,
    onLost: "pause",
    resetAfter: 1,
  };
  if (!node) return def;
  const m: YMap | undefined = r.map(node, "tracking");
  if (!m) return undefined;
  const k = r.keys(
    m,
    ["landmarks", "min_visibility", "lost_after", "on_lost", "reset_after"],
    "tracking",
  );
  if (k.has("landmarks")) {
    const names = r.names(k.get("landmarks")!.value, "tracking.landmarks");
    if (!names) return undefined;
    for (const { name, node: n } of names) {
      if (!parseLandmarkName(name)) {
        r.issues.error(
          "UNKNOWN_LANDMARK",
          `unknown landmark '${name}' in tracking.landmarks`,
          at(n),
        );
        return undefined;
      }
    }
    def.landmarks = names.map((n) => n.name);
  }
  if (k.has("min_visibility")) {
    const v = r.number(k.get("min_visibility")!.value, "tracking.min_visibility", {
      min: 0,
      max: 1,
    });
    if (v === undefined) return undefined;
    def.minVisibility = v;
  }
  if (k.has("lost_after")) {
    const v = r.duration(k.get("lost_after")!.value, "tracking.lost_after", {
      max: 60,
      usually: "short",
    });
    if (v === undefined) return undefined;
    def.lostAfter = v;
  }
  if (k.has("on_lost")) {
    const v = r.oneOf(k.get("on_lost")!.value, "tracking.on_lost", ["pause", "reset"] as const);
    if (v === undefined) return undefined;
    def.onLost = v;
  }
  if (k.has("reset_after")) {
    const v = r.duration(k.get("reset_after")!.value, "tracking.reset_after", { max: 600 });
    if (v === undefined) return undefined;
    def.resetAfter = v;
  }
  return def;
}
