/** The initial draft of every new MoveSpec: small, valid, warning-free, and worth reading. */
export const MOVESPEC_TEMPLATE = `# A MoveSpec describes one movement. Reference: docs/movespec.md
movespec: 1
name: Squat
description: Counts bodyweight squats; works from the front or the side.
tags: [legs]

signals:
  # How high the hips are above the ankles, in torso lengths (about 1.5 standing, under 1 at the bottom).
  hip_height: above(mid_hip, mid_ankle)

phases:
  up:
    enter: hip_height > 1.3
    exit: hip_height < 1.2
  down:
    enter: hip_height < 1.0
    exit: hip_height > 1.1

repetition:
  cycle: [up, down, up]
  within: [0.5s, 10s]
  start: { phase: up, for: 0.2s }
`;
