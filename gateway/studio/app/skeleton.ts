import { TOPOLOGIES } from "@movement-detection/movespec";
import type { RecordedFrame } from "./recording.js";

/** Bones to draw, by landmark name; pairs a topology lacks are skipped. */
const BONES: readonly [string, string][] = [
  ["left_shoulder", "right_shoulder"],
  ["left_hip", "right_hip"],
  ["left_shoulder", "left_hip"],
  ["right_shoulder", "right_hip"],
  ["left_shoulder", "left_elbow"],
  ["left_elbow", "left_wrist"],
  ["right_shoulder", "right_elbow"],
  ["right_elbow", "right_wrist"],
  ["left_hip", "left_knee"],
  ["left_knee", "left_ankle"],
  ["right_hip", "right_knee"],
  ["right_knee", "right_ankle"],
  ["left_ankle", "left_foot_index"],
  ["right_ankle", "right_foot_index"],
];

/** Visibility below which a keypoint is not drawn (the recordings mark unmeasured ones with 0). */
const MIN_VISIBILITY = 0.3;

/**
 * Draws one frame's pose, left side blue and right side red, keeping the image's aspect ratio
 * (keypoints are normalised to it, y down). Returns the number of bones drawn (those whose two
 * ends were seen), which the callers say in words: a canvas shows nothing to a screen reader.
 */
export function drawSkeleton(
  canvas: HTMLCanvasElement,
  frame: RecordedFrame | undefined,
  aspectRatio = 16 / 9,
  /** null: a transparent canvas (over a video). */
  background: string | null = "#fafafa",
): number {
  const g = canvas.getContext("2d");
  if (!g) return 0;
  if (background === null) g.clearRect(0, 0, canvas.width, canvas.height);
  else {
    g.fillStyle = background;
    g.fillRect(0, 0, canvas.width, canvas.height);
  }
  if (!frame?.keypoints) return 0;
  const { index } =
    frame.keypoints.length === TOPOLOGIES["coco-17"].keypointCount
      ? TOPOLOGIES["coco-17"]
      : TOPOLOGIES["blazepose-33"];
  const width = Math.min(canvas.width, canvas.height * aspectRatio);
  const height = width / aspectRatio;
  const left = (canvas.width - width) / 2;
  const top = (canvas.height - height) / 2;
  const at = (name: string): [number, number] | undefined => {
    const i = index.get(name);
    const k = i === undefined ? undefined : frame.keypoints?.[i];
    if (!k || (k.length > 3 && k[3] < MIN_VISIBILITY)) return undefined;
    return [left + k[0] * width, top + k[1] * height];
  };
  g.lineWidth = 3;
  g.lineCap = "round";
  let bones = 0;
  for (const [a, b] of BONES) {
    const p = at(a);
    const q = at(b);
    if (!p || !q) continue;
    bones += 1;
    g.strokeStyle =
      a.startsWith("left") && b.startsWith("left")
        ? "#1f5fa8"
        : a.startsWith("right") && b.startsWith("right")
          ? "#b8322a"
          : "#444";
    g.beginPath();
    g.moveTo(p[0], p[1]);
    g.lineTo(q[0], q[1]);
    g.stroke();
  }
  g.fillStyle = "#222";
  for (const name of index.keys()) {
    const p = at(name);
    if (!p) continue;
    g.beginPath();
    g.arc(p[0], p[1], 3, 0, Math.PI * 2);
    g.fill();
  }
  return bones;
}
