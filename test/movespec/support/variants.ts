/**
 * Re-renders a recording as other cameras and pose models would give it, to check that the
 * reference MoveSpecs count the movement rather than the file: 2D only (no z, no visibility),
 * the camera turned about the person, half the frame rate, jitter, and the COCO-17 topology at
 * 10 fps (what the Studio's camera gives on a CPU: MoveNet through WebAssembly, docs/studio.md).
 */
import { everyNth, jittered, rotated, twoD } from "../../../bench/accuracy/perturbations.js";

/** The bundled recordings always have a person in every frame. */
type Frame = { seq: number; t: number; keypoints: number[][] };

const LEFT_HIP = 23;
const RIGHT_HIP = 24;

/**
 * Side view where the pose model barely sees the far side: left-side landmarks (taken as away
 * from the camera, so the exercised right arm of the shoulder recordings stays visible) get
 * visibility 0.3, the near side 0.9. Keypoints are [x, y, 0, visibility].
 */
function sideViewFarSideDim(frames: Frame[]): Frame[] {
  return rotated(frames, 90).map((f) => ({
    ...f,
    keypoints: f.keypoints.map((p, i) => [p[0], p[1], 0, FAR_SIDE.has(i) ? 0.3 : 0.9]),
  }));
}
const FAR_SIDE = new Set([1, 2, 3, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31]);

/**
 * Moves both hip landmarks down by `fraction` of the torso (negative: up). Pose models disagree
 * on where the hip is (Kinect's hip joints sit higher than BlazePose's).
 */
function hipsMoved(frames: Frame[], fraction: number): Frame[] {
  return frames.map((f) => {
    const kp = f.keypoints.map((p) => [...p]);
    const torso = (kp[LEFT_HIP][1] + kp[RIGHT_HIP][1]) / 2 - (kp[11][1] + kp[12][1]) / 2;
    for (const i of [LEFT_HIP, RIGHT_HIP]) kp[i][1] += fraction * torso;
    return { ...f, keypoints: kp };
  });
}

/** BlazePose-33 index of each COCO-17 keypoint. */
const COCO_FROM_BLAZEPOSE = [0, 2, 5, 7, 8, 11, 12, 13, 14, 15, 16, 23, 24, 25, 26, 27, 28];

function toCoco17(frames: Frame[]): Frame[] {
  return frames.map((f) => ({ ...f, keypoints: COCO_FROM_BLAZEPOSE.map((i) => f.keypoints[i]) }));
}

/** How many recorded frames make one frame of the variant (its boundaries scale by it). */
export const FRAME_STEP: Record<string, number> = { "15 fps": 2, "coco-17 2d, 10 fps": 3 };

export const VARIANTS: Record<string, (frames: Frame[]) => Frame[]> = {
  "2d": twoD,
  "turned +45": (f) => rotated(f, 45),
  "turned -45": (f) => rotated(f, -45),
  "side view": (f) => rotated(f, 90),
  "side view, far side dim": sideViewFarSideDim,
  "15 fps": (f) => everyNth(f, 2),
  jitter: (f) => jittered(f, 0.004),
  "coco-17 2d": (f) => twoD(toCoco17(f)),
  "coco-17 2d, 10 fps": (f) => everyNth(twoD(toCoco17(f)), 3),
  "hips 8% lower": (f) => hipsMoved(f, 0.08),
  "hips 8% higher": (f) => hipsMoved(f, -0.08),
};
