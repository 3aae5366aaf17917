/**
 * A small kinematic body model that renders pose frames (BlazePose-33 order) for movements the
 * shared recordings do not cover: push-ups, jumping jacks, curls, planks, arm raises. Angles in
 * degrees; lengths in image heights; x is rendered on the 16:9 image-width scale like real frames.
 */

import { TOPOLOGIES } from "@movement-detection/movespec";

export type Frame = { seq: number; t: number; keypoints: number[][] };
type V3 = [number, number, number];

const ASPECT = 16 / 9;
const RAD = Math.PI / 180;
/** The floor's height in the picture, in image heights from the top. */
const FLOOR = 0.92;

/** Joint angles of one instant; omitted values mean standing relaxed. */
export interface Pose {
  /** Knee flexion (0 straight) for both legs, or per leg. */
  knee?: number;
  kneeLeft?: number;
  kneeRight?: number;
  /** Forward trunk lean from vertical. */
  lean?: number;
  /** Arm elevation in the frontal plane (0 hanging, 90 level, 180 overhead), per arm. */
  armLeft?: number;
  armRight?: number;
  /** Elbow flexion (0 straight), forearm swinging forward. */
  elbowLeft?: number;
  elbowRight?: number;
  /** Leg abduction (feet apart), degrees per leg. */
  legSpread?: number;
  /** Push-up / plank: body horizontal, elbow flexion of the supporting arms. */
  prone?: { elbow: number; sag?: number };
}

const L = {
  torso: 0.25,
  thigh: 0.21,
  shin: 0.21,
  upperArm: 0.14,
  forearm: 0.12,
  hipHalf: 0.05,
  shoulderHalf: 0.085,
  head: 0.1,
  foot: 0.05,
};

function add(a: V3, b: V3, k = 1): V3 {
  return [a[0] + b[0] * k, a[1] + b[1] * k, a[2] + b[2] * k];
}

/** Person coordinates: x = the person's left, y = down, z = the direction the person faces. */
function body(p: Pose): Record<string, V3> {
  const j: Record<string, V3> = {};
  if (p.prone) return proneBody(p.prone.elbow, p.prone.sag ?? 0);
  const floor = FLOOR;
  for (const side of ["left", "right"] as const) {
    const sx = side === "left" ? 1 : -1;
    const flex = (side === "left" ? p.kneeLeft : p.kneeRight) ?? p.knee ?? 0;
    const spread = (p.legSpread ?? 0) * RAD;
    // Shin tilts forward by half the flexion, thigh back by the other half (hips go back).
    const shinTilt = (flex / 2) * RAD;
    const thighTilt = (flex / 2) * RAD;
    const ankle: V3 = [sx * (L.hipHalf + Math.sin(spread) * (L.thigh + L.shin)), floor, 0];
    // Knees track over toes turned out by 25 degrees, as in a real squat.
    const out = 25 * RAD;
    const fx = sx * Math.sin(out);
    const fz = Math.cos(out);
    const knee = add(
      ankle,
      [Math.sin(shinTilt) * fx, -Math.cos(shinTilt) * Math.cos(spread), Math.sin(shinTilt) * fz],
      L.shin,
    );
    const hip = add(
      knee,
      [
        -Math.sin(thighTilt) * fx,
        -Math.cos(thighTilt) * Math.cos(spread),
        -Math.sin(thighTilt) * fz,
      ],
      L.thigh,
    );
    j[`${side}_ankle`] = ankle;
    j[`${side}_knee`] = knee;
    j[`${side}_hip`] = hip;
    j[`${side}_heel`] = add(ankle, [0, 0.01, -0.02]);
    j[`${side}_foot_index`] = add(ankle, [0, 0.02, L.foot]);
  }
  // Level the pelvis: both hips at the mean height.
  const hipY = (j.left_hip[1] + j.right_hip[1]) / 2;
  const hipZ = (j.left_hip[2] + j.right_hip[2]) / 2;
  j.left_hip = [L.hipHalf, hipY, hipZ];
  j.right_hip = [-L.hipHalf, hipY, hipZ];
  const lean = (p.lean ?? (p.knee ?? 0) / 3) * RAD;
  const up: V3 = [0, -Math.cos(lean), Math.sin(lean)];
  const neck = add([0, hipY, hipZ], up, L.torso);
  j.left_shoulder = add(neck, [L.shoulderHalf, 0, 0]);
  j.right_shoulder = add(neck, [-L.shoulderHalf, 0, 0]);
  j.nose = add(add(neck, up, L.head), [0, 0, 0.03]);
  for (const side of ["left", "right"] as const) {
    const sx = side === "left" ? 1 : -1;
    const elev = ((side === "left" ? p.armLeft : p.armRight) ?? 8) * RAD;
    const flex = ((side === "left" ? p.elbowLeft : p.elbowRight) ?? 5) * RAD;
    const shoulder = j[`${side}_shoulder`];
    const upper: V3 = [sx * Math.sin(elev), Math.cos(elev), 0];
    const elbow = add(shoulder, upper, L.upperArm);
    // The forearm bends forward (towards z) from the upper arm's direction.
    const fore: V3 = [upper[0] * Math.cos(flex), upper[1] * Math.cos(flex), Math.sin(flex)];
    const wrist = add(elbow, fore, L.forearm);
    j[`${side}_elbow`] = elbow;
    j[`${side}_wrist`] = wrist;
  }
  return j;
}

function proneBody(elbowFlex: number, sag: number): Record<string, V3> {
  const j: Record<string, V3> = {};
  const floor = FLOOR;
  const e = elbowFlex * RAD;
  // Shoulder height above the wrist: the two arm segments with the given elbow angle.
  const a = L.upperArm;
  const b = L.forearm;
  const h = Math.sqrt(a * a + b * b - 2 * a * b * Math.cos(Math.PI - e));
  const bodyLen = L.torso + L.thigh + L.shin;
  for (const side of ["left", "right"] as const) {
    const sx = side === "left" ? 1 : -1;
    const wrist: V3 = [sx * L.shoulderHalf, floor, 0.3];
    const shoulder: V3 = [sx * L.shoulderHalf, floor - h, 0.3];
    // Elbow sticks out backwards (towards -z), off the wrist-shoulder line.
    // The elbow is a from the shoulder and b from the wrist, off the line towards the feet.
    const d = (a * a - b * b + h * h) / (2 * h);
    const off = Math.sqrt(Math.max(0, a * a - d * d));
    const elbow: V3 = [sx * L.shoulderHalf, floor - h + d, 0.3 - off];
    const toe: V3 = [sx * L.hipHalf, floor, 0.3 - bodyLen];
    const dir: V3 = [0, (toe[1] - shoulder[1]) / bodyLen, (toe[2] - shoulder[2]) / bodyLen];
    const hip = add(add(shoulder, dir, L.torso), [0, sag, 0]);
    const knee = add(shoulder, dir, L.torso + L.thigh);
    j[`${side}_wrist`] = wrist;
    j[`${side}_elbow`] = elbow;
    j[`${side}_shoulder`] = shoulder;
    j[`${side}_hip`] = [sx * L.hipHalf, hip[1], hip[2]];
    j[`${side}_knee`] = [sx * L.hipHalf, knee[1], knee[2]];
    j[`${side}_ankle`] = [sx * L.hipHalf, toe[1] - 0.03, toe[2]];
    j[`${side}_heel`] = [sx * L.hipHalf, toe[1] - 0.05, toe[2] - 0.02];
    j[`${side}_foot_index`] = toe;
  }
  j.nose = add([0, j.left_shoulder[1], 0.3], [0, 0.02, 0.1]);
  return j;
}

/** Landmark names in BlazePose-33 keypoint order, from the library's own topology table. */
const ORDER: readonly string[] = [...TOPOLOGIES["blazepose-33"].index.entries()]
  .sort((a, b) => a[1] - b[1])
  .map(([name]) => name);
const STAND_IN: Record<string, string> = {
  left_eye_inner: "nose",
  left_eye: "nose",
  left_eye_outer: "nose",
  right_eye_inner: "nose",
  right_eye: "nose",
  right_eye_outer: "nose",
  left_ear: "nose",
  right_ear: "nose",
  left_mouth: "nose",
  right_mouth: "nose",
  left_pinky: "left_wrist",
  left_index: "left_wrist",
  left_thumb: "left_wrist",
  right_pinky: "right_wrist",
  right_index: "right_wrist",
  right_thumb: "right_wrist",
};

/**
 * Renders a pose seen by a camera turned `view` degrees from the front (90 = the person's left
 * side faces the camera). Keypoints are [x, y, z, visibility].
 */
export function render(pose: Pose, view = 0): number[][] {
  const j = body(pose);
  const a = view * RAD;
  const cx = 0.5 * ASPECT;
  return ORDER.map((name) => {
    const p = j[name] ?? j[STAND_IN[name]];
    // Facing the camera, the person's left is the image's right; depth towards the camera is +z.
    const x = p[0] * Math.cos(a) + p[2] * Math.sin(a);
    const z = -p[0] * Math.sin(a) + p[2] * Math.cos(a);
    return [round((cx + x) / ASPECT), round(p[1]), round(z / ASPECT), 0.95];
  });
}

function round(x: number): number {
  return Math.round(x * 1e5) / 1e5;
}

/**
 * Frames rendered by `render` (a camera far away) as a camera `height` above the floor and
 * `distance` in front of the body's nearest point would see them: farther points look smaller and
 * nearer the camera's eye level. A push-up filmed head-on by a camera at the shoulders' height or
 * above: the hips, farther and lower than the shoulders, show above them.
 */
export function perspective(
  frames: Frame[],
  camera: { height: number; distance: number },
): Frame[] {
  const eye = FLOOR - camera.height;
  const cx = 0.5 * ASPECT;
  const nearest = Math.max(...frames.flatMap((f) => f.keypoints.map((p) => p[2] * ASPECT)));
  return frames.map((f) => ({
    ...f,
    keypoints: f.keypoints.map(([x, y, z, visibility]) => {
      const k = camera.distance / (camera.distance + nearest - z * ASPECT);
      return [
        round((cx + (x * ASPECT - cx) * k) / ASPECT),
        round(eye + (y - eye) * k),
        z,
        visibility,
      ];
    }),
  }));
}

/** Samples `poseAt(t)` at `fps` for `seconds`. */
export function animate(
  seconds: number,
  poseAt: (t: number) => Pose,
  options: { fps?: number; view?: number; startSeq?: number; startT?: number } = {},
): Frame[] {
  const fps = options.fps ?? 30;
  const frames: Frame[] = [];
  const n = Math.round(seconds * fps);
  for (let i = 0; i < n; i++) {
    const t = i / fps;
    frames.push({
      seq: (options.startSeq ?? 0) + i,
      t: round((options.startT ?? 0) + t),
      keypoints: render(poseAt(t), options.view ?? 0),
    });
  }
  return frames;
}

/** 0 -> 1 -> 0 over one period (a smooth repetition profile), 0 outside [0, period]. */
function bump(t: number, period: number): number {
  if (t <= 0 || t >= period) return 0;
  return (1 - Math.cos((2 * Math.PI * t) / period)) / 2;
}

/** `count` repetitions of `period` seconds after `rest` seconds, then `rest` seconds. */
export function reps(t: number, count: number, period: number, rest = 1): number {
  const u = t - rest;
  if (u < 0 || u >= count * period) return 0;
  return bump(u % period, period);
}
