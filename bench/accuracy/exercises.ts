/**
 * Which reference MoveSpec (a file of the spec directory, examples/movespecs by default) counts
 * the exercise a manifest names. An exercise missing here, or whose file is missing, is scored as
 * a miss: the product cannot count it.
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
