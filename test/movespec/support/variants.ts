/**
 * Re-renders a recording as other cameras and pose models would give it, to check that the
 * reference MoveSpecs count the movement rather than the file: 2D only (no z, no visibility),
 * the camera turned about the person, half the frame rate, jitter, and the COCO-17 topology at
 * 10 fps (what the Studio's camera gives on a CPU: MoveNet through WebAssembly, docs/studio.md).
 */
type Frame = { seq: number; t: number; keypoints: number[][] };

const ASPECT = 16 / 9;
const LEFT_HIP = 23;
const RIGHT_HIP = 24;

/** Drops z and visibility: what a 2D pose model without confidences gives. */
function twoD(frames: Frame[]): Frame[] {
  return frames.map((f) => ({ ...f, keypoints: f.keypoints.map((p) => [p[0], p[1]]) }));
}

/**
 * Turns the camera by `degrees` about the vertical axis through the hips (orthographic, in
 * aspect-corrected units), then keeps x and y only.
 */
function rotated(frames: Frame[], degrees: number): Frame[] {
  const a = (degrees * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  return frames.map((f) => {
    const l = f.keypoints[LEFT_HIP];
    const r = f.keypoints[RIGHT_HIP];
    const cx = ((l[0] + r[0]) / 2) * ASPECT;
    const cz = ((l[2] + r[2]) / 2) * ASPECT;
    return {
      ...f,
      keypoints: f.keypoints.map((p) => {
        const x = p[0] * ASPECT - cx;
        const z = p[2] * ASPECT - cz;
        return [(cx + x * cos + z * sin) / ASPECT, p[1]];
      }),
    };
  });
}

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

/** Every `n`th frame (n = 2: 15 fps from 30 fps), renumbered. */
function everyNth(frames: Frame[], n: number): Frame[] {
  return frames.filter((_, i) => i % n === 0).map((f, i) => ({ ...f, seq: i }));
}

/** Adds deterministic jitter of about `sigma` image heights to x and y. */
function jittered(frames: Frame[], sigma: number, seed = 1): Frame[] {
  let s = seed >>> 0;
  const rand = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
  return frames.map((f) => ({
    ...f,
    keypoints: f.keypoints.map((p) => [
      p[0] + (gauss() * sigma) / ASPECT,
      p[1] + gauss() * sigma,
      ...p.slice(2),
    ]),
  }));
}

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
