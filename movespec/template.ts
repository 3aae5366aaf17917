/** The initial draft of every new MoveSpec: small, valid, warning-free, and worth reading. */
export const MOVESPEC_TEMPLATE = `# A MoveSpec describes one movement. Reference: docs/movespec.md
movespec: 1
name: Squat
description: Counts bodyweight squats of any depth; works from the front or the side.
tags: [legs]

signals:
  # How high the hips are above the ankles, in torso lengths (about 1.5 standing, under 1 at the bottom).
  hip_height: above(mid_hip, mid_ankle)
  # Where the hips are within this person's recent range: 0 standing, 1 at the bottom of the squat.
  depth:
    adaptive: hip_height
    rest: high
    min_range: 0.2 # torso lengths: a smaller range is noise and counts nothing

phases:
  up:
    enter: depth < 0.3
    exit: depth > 0.4
  down:
    enter: depth > 0.6
    exit: depth < 0.5

repetition:
  cycle: [up, down, up]
  within: [0.5s, 10s]
  start: { phase: up, for: 0.2s }
`;
