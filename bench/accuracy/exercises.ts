/**
 * Which reference MoveSpec (a file of the spec directory, examples/movespecs by default) counts
 * the exercise a manifest names, and which movements it must not count. An exercise missing
 * here, or whose file is missing, is scored as a miss: the product cannot count it.
 */
export const REFERENCE_SPECS: Readonly<Record<string, string>> = {
  // UI-PRMD (lab, Kinect)
  deep_squat: "squat",
  side_lunge: "lunge",
  sit_to_stand: "sit-to-stand",
  standing_shoulder_abduction: "shoulder-abduction",
  standing_shoulder_scaption: "shoulder-abduction",
  // RepCount-A (in the wild, MediaPipe)
  squat: "squat",
  push_up: "push-up",
  pull_up: "pull-up",
  jump_jack: "jumping-jack",
  situp: "sit-up",
  front_raise: "front-raise",
  bench_pressing: "bench-press",
};

const LOWER_BODY = ["deep_squat", "side_lunge", "sit_to_stand"];
const SHOULDER = ["standing_shoulder_abduction", "standing_shoulder_scaption"];

/**
 * Recordings of other movements a MoveSpec must count (almost) nothing on: `movespec fit` takes
 * them as negatives (expected 0) and the specificity table checks them. Only UI-PRMD's: its
 * coordinates are real, while RepCount-A's per-frame normalisation erases the body's orientation
 * and proportions (its confusion table is reported without a goal). Sit-to-stand and the deep
 * squat are not each other's negatives: from the front, a squat to a chair's height and a rise
 * from the chair are the same movement of the hips and knees (docs/tuning-movespecs.md).
 */
export const NEGATIVES: Readonly<Record<string, readonly string[]>> = {
  squat: ["side_lunge", ...SHOULDER],
  lunge: ["deep_squat", ...SHOULDER],
  "sit-to-stand": SHOULDER,
  "shoulder-abduction": LOWER_BODY,
  "arm-raise": LOWER_BODY,
};

/**
 * How many repetitions a MoveSpec may count on one recording of a negative movement (10
 * repetitions each): at most 1 of 10 side lunges for the squat and 1 of 10 deep squats for the
 * lunge (issue 37), none otherwise.
 */
export function negativeTolerance(spec: string, exercise: string): number {
  return (spec === "squat" && exercise === "side_lunge") ||
    (spec === "lunge" && exercise === "deep_squat")
    ? 1
    : 0;
}
