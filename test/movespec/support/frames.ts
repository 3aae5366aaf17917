/**
 * Hand-made frames for engine tests: the 2D elbow angle of each arm is set exactly, so a test
 * can drive a signal through any sequence of values.
 */
import { type CompiledSpec, load } from "@movement-detection/movespec";

const ASPECT = 16 / 9;
export type Frame = { seq: number; t: number; keypoints: number[][] };

/** BlazePose keypoints with the left and right elbow angles (degrees) given. */
export function arms(
  leftDeg: number,
  rightDeg: number,
  visibility = { left: 1, right: 1 },
): number[][] {
  const kp: number[][] = Array.from({ length: 33 }, () => [0.5, 0.5, 0, 1]);
  const place = (
    shoulder: number,
    elbow: number,
    wrist: number,
    cx: number,
    deg: number,
    vis: number,
  ) => {
    const ex = cx;
    const ey = 0.5;
    kp[shoulder] = [ex / ASPECT, ey - 0.1, 0, vis];
    kp[elbow] = [ex / ASPECT, ey, 0, vis];
    const a = (deg * Math.PI) / 180;
    // Angle at the elbow between "up" (towards the shoulder) and the forearm.
    kp[wrist] = [(ex + 0.1 * Math.sin(a)) / ASPECT, ey - 0.1 * Math.cos(a), 0, vis];
  };
  place(11, 13, 15, 1.0, leftDeg, visibility.left);
  place(12, 14, 16, 0.6, rightDeg, visibility.right);
  // Torso for the body scale: shoulders above hips.
  kp[23] = [1.0 / ASPECT, 0.8, 0, 1];
  kp[24] = [0.6 / ASPECT, 0.8, 0, 1];
  return kp;
}

/** Frames at `fps` from a list of (left, right) angles; visibility per frame optional. */
export function sequence(
  angles: ([number, number] | [number, number, { left: number; right: number }])[],
  fps = 10,
  start = 0,
): Frame[] {
  return angles.map(([l, r, vis], i) => ({
    seq: start + i,
    t: Math.round(((start + i) / fps) * 1e6) / 1e6,
    keypoints: arms(l, r, vis),
  }));
}

/** Same angle on both arms, one frame per value. */
export function both(values: number[], fps = 10, start = 0): Frame[] {
  return sequence(
    values.map((v) => [v, v] as [number, number]),
    fps,
    start,
  );
}

/** Linear ramp from a to b in n steps (inclusive of b, exclusive of a). */
export function ramp(a: number, b: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => a + ((b - a) * (i + 1)) / n);
}

export function hold(v: number, n: number): number[] {
  return Array.from({ length: n }, () => v);
}

/** One repetition 170 -> 40 -> 170 over about 2 s at 10 fps, with rests around it. */
export function oneRep(): number[] {
  return [
    ...hold(170, 5),
    ...ramp(170, 40, 8),
    ...hold(40, 3),
    ...ramp(40, 170, 8),
    ...hold(170, 5),
  ];
}

/** A MoveSpec on the elbow angle, with `extra` YAML appended (it may override nothing). */
export const ELBOW_SPEC = (
  opts: {
    sides?: string;
    extra?: string;
    phases?: string;
    repetition?: string;
    smoothing?: string;
  } = {},
) => `movespec: 1
name: Elbow test
sides: ${opts.sides ?? "left"}
smoothing: ${opts.smoothing ?? "none"}
signals:
  elbow: angle2d(shoulder, elbow, wrist)
phases:
${
  opts.phases ??
  `  open:
    enter: elbow > 150
    exit: elbow < 140
    min_dwell: 0
  closed:
    enter: elbow < 60
    exit: elbow > 70
    min_dwell: 0`
}
${
  opts.repetition ??
  `repetition:
  cycle: [open, closed, open]
  within: [0.2s, 5s]`
}
${opts.extra ?? ""}
`;

export function compile(yaml: string): CompiledSpec {
  const r = load(yaml);
  if (!r.spec) throw new Error(`spec did not load: ${JSON.stringify(r.errors, null, 1)}`);
  return r.spec;
}

/** A deterministic pseudo-random generator (LCG) returning 0..1, for noise and jitter. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Frames whose left elbow angle follows `angle(t)` (degrees) for `seconds`: at `fps`, with each
 * frame dropped with probability `drop` and its time moved by up to `jitter` seconds (times stay
 * increasing), from `seq`/`t` `start` on. The right arm mirrors the left.
 */
export function angleFrames(
  angle: (t: number) => number,
  seconds: number,
  options: { fps?: number; drop?: number; jitter?: number; seed?: number; start?: number } = {},
): Frame[] {
  const fps = options.fps ?? 30;
  const rand = seeded(options.seed ?? 7);
  const start = options.start ?? 0;
  const frames: Frame[] = [];
  const n = Math.round(seconds * fps);
  for (let i = 0; i < n; i++) {
    const jitter = options.jitter ? (rand() * 2 - 1) * options.jitter : 0;
    const keep = options.drop ? rand() >= options.drop : true;
    const t = Math.round((start + i / fps + Math.max(0, jitter)) * 1e6) / 1e6;
    if (!keep || (frames.length > 0 && t <= frames[frames.length - 1].t)) continue;
    const deg = Math.min(179.5, Math.max(0.5, angle(t - start)));
    frames.push({ seq: Math.round(start * 1000) + i, t, keypoints: arms(deg, deg) });
  }
  return frames;
}

/** Gaussian noise (Box-Muller) of standard deviation `sigma` from a seeded generator. */
export function gaussian(sigma: number, seed = 3): () => number {
  const rand = seeded(seed);
  return () => sigma * Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
}

/** Repetitions as a smooth dip of `depth` degrees below `rest`, `period` seconds each. */
export function dips(t: number, rest: number, depth: number, period: number): number {
  return rest - (depth * (1 - Math.cos((2 * Math.PI * t) / period))) / 2;
}
