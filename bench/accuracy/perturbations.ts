/**
 * Recordings as other cameras, pose models and networks would give them: frames lost, a lower
 * frame rate, jittery keypoints, a mirrored picture, a camera turned about the person. A MoveSpec
 * should count the movement, not the file: the accuracy benchmark counts every recording under
 * each of these and reports the counts that change, and the reference MoveSpecs' tests use them
 * on the bundled recordings. Deterministic: the same frames and seed give the same result.
 */

export type Keypoint = number[];
export interface Frame {
  seq: number;
  t: number;
  keypoints: Keypoint[] | null;
}

const ASPECT = 16 / 9;
const LEFT_HIP = 23;
const RIGHT_HIP = 24;

/** A small deterministic generator (a linear congruential one): uniform in [0, 1). */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Each keypoint of each frame through `f`; frames without a person stay as they are. */
function mapKeypoints<F extends Frame>(
  frames: readonly F[],
  f: (p: Keypoint, i: number) => Keypoint,
): F[] {
  return frames.map((frame) =>
    frame.keypoints === null ? frame : { ...frame, keypoints: frame.keypoints.map(f) },
  );
}

/** Every `n`th frame (n = 2: 15 fps from 30 fps), renumbered. */
export function everyNth<F extends Frame>(frames: readonly F[], n: number): F[] {
  return frames.filter((_, i) => i % n === 0).map((f, i) => ({ ...f, seq: i }));
}

/** Each frame lost with probability `fraction` (a network that drops frames), the rest kept as sent. */
export function dropped<F extends Frame>(frames: readonly F[], fraction: number, seed = 1): F[] {
  const rand = random(seed);
  return frames.filter(() => rand() >= fraction);
}

/** Adds deterministic Gaussian jitter of `sigma` image heights to x and y (x scaled by the 16:9 aspect). */
export function jittered<F extends Frame>(frames: readonly F[], sigma: number, seed = 1): F[] {
  const rand = random(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
  return mapKeypoints(frames, (p) => [
    p[0] + (gauss() * sigma) / ASPECT,
    p[1] + gauss() * sigma,
    ...p.slice(2),
  ]);
}

/**
 * The picture flipped left to right (a selfie camera's preview): x becomes 1 - x; the pose
 * model still tells the person's left from their right, so the landmarks keep their names.
 */
export function mirrored<F extends Frame>(frames: readonly F[]): F[] {
  return mapKeypoints(frames, (p) => [1 - p[0], ...p.slice(1)]);
}

/** Drops z and visibility: what a 2D pose model without confidences gives. */
export function twoD<F extends Frame>(frames: readonly F[]): F[] {
  return mapKeypoints(frames, (p) => [p[0], p[1]]);
}

/**
 * Turns the camera by `degrees` about the vertical axis through the hips (orthographic, in
 * aspect-corrected units), then keeps x and y only. Needs z (depth) in the keypoints.
 */
export function rotated<F extends Frame>(frames: readonly F[], degrees: number): F[] {
  const a = (degrees * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  return frames.map((f) => {
    if (f.keypoints === null) return f;
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

export interface Perturbation {
  readonly name: string;
  /** Only recordings with depth (z) can be turned. */
  readonly needsDepth?: boolean;
  readonly apply: (frames: readonly Frame[], seed: number) => Frame[];
}

/** What the accuracy benchmark runs every recording through (issue 37's list). */
export const PERTURBATIONS: readonly Perturbation[] = [
  { name: "10% of frames dropped", apply: (f, seed) => dropped(f, 0.1, seed) },
  { name: "15 fps", apply: (f) => everyNth(f, 2) },
  { name: "1% keypoint jitter", apply: (f, seed) => jittered(f, 0.01, seed) },
  { name: "mirrored", apply: (f) => mirrored(f) },
  { name: "camera turned 35 degrees", needsDepth: true, apply: (f) => rotated(f, 35) },
];

/** Whether the frames carry depth (z) to turn the camera with. */
export function hasDepth(frames: readonly Frame[]): boolean {
  const first = frames.find((f) => f.keypoints !== null);
  return (first?.keypoints?.[0]?.length ?? 0) >= 3;
}
