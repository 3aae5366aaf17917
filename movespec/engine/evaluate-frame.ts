/**
 * What the engine computes from each accepted frame, before the state machines run: the point
 * slots, the body scale, the signal slots and the tracking gate per side. Creates no object (the
 * compiled values it calls return numbers, which V8 may box).
 */
import { SIDE_KEYS } from "../sides.js";
import { smooth } from "./filters.js";
import type { FrameFacts } from "./machine/index.js";
import { type Program, SCALE_TIME_CONSTANT } from "./program/index.js";

/** Evaluates the frame in `program.memory.frame` (time `t`) and fills `facts` for the machines. */
export function evaluateFrame(
  p: Program,
  minVisibility: number,
  seq: number,
  t: number,
  facts: FrameFacts,
): void {
  p.memory.t = t;
  computePoints(p);
  followScale(p, minVisibility, t);
  computeSignals(p, minVisibility, t);
  facts.seq = seq;
  facts.t = t;
  checkGate(p, minVisibility, facts);
}

/** Point slots: landmarks, and midpoints (their visibility is the lower of the two). */
function computePoints(p: Program): void {
  const frame = p.memory.frame;
  const points = p.memory.points;
  const sources = p.pointSources;
  for (let i = 0; i < sources.length; i++) {
    const a = sources[i][0] * 4;
    const b = sources[i][1];
    const o = i * 4;
    if (b < 0) {
      points[o] = frame[a];
      points[o + 1] = frame[a + 1];
      points[o + 2] = frame[a + 2];
      points[o + 3] = frame[a + 3];
    } else {
      const c = b * 4;
      points[o] = (frame[a] + frame[c]) / 2;
      points[o + 1] = (frame[a + 1] + frame[c + 1]) / 2;
      points[o + 2] = (frame[a + 2] + frame[c + 2]) / 2;
      points[o + 3] = Math.min(frame[a + 3], frame[c + 3]);
    }
  }
}

/**
 * Body scale: a follower of the torso (or shoulder/hip) length, or of the height of the frame's
 * visible keypoints, that rises at once and decays slowly, so leaning towards the camera (or
 * crouching) does not inflate normalised distances.
 */
function followScale(p: Program, minVisibility: number, t: number): void {
  const len = p.scaleByHeight
    ? visibleHeight(p, minVisibility)
    : meanPairLength(p.scalePoints, p.memory.points, minVisibility);
  if (len > 0) {
    const s = p.memory.state;
    const prev = s[0];
    if (Number.isNaN(prev) || len >= prev) s[0] = len;
    else s[0] = prev + (1 - Math.exp(-(t - s[1]) / SCALE_TIME_CONSTANT)) * (len - prev);
    s[1] = t;
  }
}

function meanPairLength(
  pairs: Program["scalePoints"],
  points: Float64Array,
  minVisibility: number,
): number {
  let sum = 0;
  let n = 0;
  for (let k = 0; k < pairs.length; k++) {
    const a = pairs[k][0] * 4;
    const b = pairs[k][1] * 4;
    if (points[a + 3] >= minVisibility && points[b + 3] >= minVisibility) {
      const dx = points[a] - points[b];
      const dy = points[a + 1] - points[b + 1];
      sum += Math.sqrt(dx * dx + dy * dy);
      n++;
    }
  }
  return n > 0 ? sum / n : 0;
}

/** Vertical extent of every visible keypoint of the frame (0 when fewer than two are visible). */
function visibleHeight(p: Program, minVisibility: number): number {
  const frame = p.memory.frame;
  let top = Number.POSITIVE_INFINITY;
  let bottom = Number.NEGATIVE_INFINITY;
  for (let o = 0; o < p.keypointCount * 4; o += 4) {
    if (!(frame[o + 3] >= minVisibility)) continue;
    const y = frame[o + 1];
    if (y < top) top = y;
    if (y > bottom) bottom = y;
  }
  return bottom > top ? bottom - top : 0;
}

/** Signal slots, in dependency order; a slot whose landmarks are hidden keeps its last value. */
function computeSignals(p: Program, minVisibility: number, t: number): void {
  const mem = p.memory;
  const points = mem.points;
  const slots = p.slots;
  const values = mem.values;
  const fresh = mem.fresh;
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i];
    let ok = true;
    const pts = slot.points;
    for (let j = 0; j < pts.length; j++) {
      if (!(points[pts[j] * 4 + 3] >= minVisibility)) {
        ok = false;
        break;
      }
    }
    const deps = slot.deps;
    for (let j = 0; ok && j < deps.length; j++) if (fresh[deps[j]] === 0) ok = false;
    if (!ok) {
      fresh[i] = 0;
      continue;
    }
    const raw = slot.compute();
    if (Number.isNaN(raw) || raw === Number.POSITIVE_INFINITY || raw === Number.NEGATIVE_INFINITY) {
      fresh[i] = 0;
      continue;
    }
    smooth(slot.smoothing, mem.state, slot.filterAt, raw, t);
    values[i] = mem.state[slot.filterAt];
    fresh[i] = 1;
  }
}

/** Tracking gate per side: every gate landmark visible, and their mean visibility (for auto). */
function checkGate(p: Program, minVisibility: number, facts: FrameFacts): void {
  const points = p.memory.points;
  for (const side of SIDE_KEYS) {
    const gp = p.gatePoints[side];
    let ok = true;
    let sum = 0;
    for (let j = 0; j < gp.length; j++) {
      const v = points[gp[j] * 4 + 3];
      sum += v;
      if (!(v >= minVisibility)) ok = false;
    }
    let n = gp.length;
    if (side === "none") {
      // Either side of each pair will do; the better-visible one counts towards the mean.
      const pairs = p.gateEither;
      for (let j = 0; j < pairs.length; j++) {
        const a = points[pairs[j][0] * 4 + 3];
        const b = points[pairs[j][1] * 4 + 3];
        const v = a >= b ? a : b;
        sum += v;
        n++;
        if (!(a >= minVisibility) && !(b >= minVisibility)) ok = false;
      }
    }
    facts.gate[side] = ok;
    facts.visibility[side] = n > 0 ? sum / n : 1;
  }
}
