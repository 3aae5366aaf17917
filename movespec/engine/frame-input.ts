/**
 * Checks one incoming frame and copies its keypoints into a reusable buffer. A frame that fails
 * a check is reported with a stable reason and leaves the engine untouched.
 */

export type RejectReason =
  | "FRAME_MALFORMED"
  | "SEQ_NOT_INCREASING"
  | "TIME_NOT_INCREASING"
  | "KEYPOINT_COUNT_MISMATCH"
  | "COORDINATE_INVALID"
  | "SESSION_FINISHED";

export interface Rejection {
  reason: RejectReason;
  message: string;
}

import { PACKED_FRAME_HEADER_BYTES, PACKED_NO_PERSON } from "./packed-frames.js";
import { ScannedFrame } from "./scanned-frame.js";

/** Largest `seq` and `t` accepted: beyond that arithmetic on them loses precision. */
const MAX_SEQ = Number.MAX_SAFE_INTEGER;
const MAX_T = 1e9;

/**
 * Validates `frame` and fills `out` (4 numbers per keypoint: x scaled by the aspect ratio, y,
 * z scaled likewise or NaN, visibility or 1; all NaN for `keypoints: null`, a frame in which the
 * pose model found no person). Returns a rejection, or undefined when accepted.
 */
export function readFrame(
  frame: unknown,
  keypointCount: number,
  aspect: number,
  lastSeq: number,
  lastT: number,
  out: Float64Array,
): Rejection | undefined {
  if (frame instanceof ScannedFrame)
    return readScannedFrame(frame, keypointCount, aspect, lastSeq, lastT, out);
  if (typeof frame !== "object" || frame === null || Array.isArray(frame)) {
    return { reason: "FRAME_MALFORMED", message: "a frame must be an object {seq, t, keypoints}" };
  }
  const f = frame as { seq?: unknown; t?: unknown; keypoints?: unknown };
  const order = checkOrder(f.seq, f.t, lastSeq, lastT);
  if (order) return order;
  const kps = f.keypoints;
  if (kps === null) {
    // No person in the picture: every landmark is missing (below any visibility threshold).
    out.fill(Number.NaN);
    return undefined;
  }
  if (!Array.isArray(kps))
    return {
      reason: "FRAME_MALFORMED",
      message: "keypoints must be an array (or null when no person was found)",
    };
  if (kps.length !== keypointCount) return countMismatch(keypointCount, kps.length);
  for (let i = 0; i < keypointCount; i++) {
    const p = kps[i];
    const n = Array.isArray(p) ? p.length : 0;
    if (n < 2 || n > 4) {
      return {
        reason: "FRAME_MALFORMED",
        message: `keypoint ${i} must be [x, y], [x, y, z] or [x, y, z, visibility]`,
      };
    }
    const rejection = storeKeypoint(
      out,
      i,
      aspect,
      p[0],
      p[1],
      n >= 3 ? p[2] : 0,
      n === 4 ? p[3] : 1,
      n >= 3,
    );
    if (rejection) return rejection;
  }
  return undefined;
}

/**
 * A frame scanned from JSON text (./scanned-frame.ts): the checks of `readFrame`, in its order,
 * on values the scanner already knows to be numbers in uniform keypoints of 2 to 4 values.
 */
function readScannedFrame(
  frame: ScannedFrame,
  keypointCount: number,
  aspect: number,
  lastSeq: number,
  lastT: number,
  out: Float64Array,
): Rejection | undefined {
  const order = checkOrder(frame.seq, frame.t, lastSeq, lastT);
  if (order) return order;
  const values = frame.values;
  if (values === null) {
    out.fill(Number.NaN);
    return undefined;
  }
  if (frame.keypointCount !== keypointCount)
    return countMismatch(keypointCount, frame.keypointCount);
  const n = frame.valuesPerKeypoint;
  const hasZ = n >= 3;
  for (let i = 0, at = 0; i < keypointCount; i++, at += n) {
    const rejection = storeKeypoint(
      out,
      i,
      aspect,
      values[at],
      values[at + 1],
      hasZ ? values[at + 2] : 0,
      n === 4 ? values[at + 3] : 1,
      hasZ,
    );
    if (rejection) return rejection;
  }
  return undefined;
}

/**
 * The packed frame at `offset` of `view` (./packed-frames.ts), checked exactly as `readFrame`
 * checks a JSON frame, its keypoints read straight from the bytes into `out`.
 */
export function readPackedFrame(
  view: DataView,
  offset: number,
  valuesPerKeypoint: number,
  keypointCount: number,
  aspect: number,
  lastSeq: number,
  lastT: number,
  out: Float64Array,
): Rejection | undefined {
  const order = checkOrder(
    view.getFloat64(offset, true),
    view.getFloat64(offset + 8, true),
    lastSeq,
    lastT,
  );
  if (order) return order;
  const flags = view.getUint32(offset + 16, true);
  if ((flags & ~PACKED_NO_PERSON) !== 0 || view.getUint32(offset + 20, true) !== 0) {
    return { reason: "FRAME_MALFORMED", message: "unknown flags in the frame's header" };
  }
  if (flags === PACKED_NO_PERSON) {
    out.fill(Number.NaN);
    return undefined;
  }
  let at = offset + PACKED_FRAME_HEADER_BYTES;
  const hasZ = valuesPerKeypoint >= 3;
  for (let i = 0; i < keypointCount; i++) {
    const x = view.getFloat32(at, true);
    const y = view.getFloat32(at + 4, true);
    const z = hasZ ? view.getFloat32(at + 8, true) : 0;
    const v = valuesPerKeypoint === 4 ? view.getFloat32(at + 12, true) : 1;
    at += 4 * valuesPerKeypoint;
    const rejection = storeKeypoint(out, i, aspect, x, y, z, v, hasZ);
    if (rejection) return rejection;
  }
  return undefined;
}

/** The same answer however the frame arrived (parsed or scanned). */
function countMismatch(expected: number, got: number): Rejection {
  return {
    reason: "KEYPOINT_COUNT_MISMATCH",
    message: `expected ${expected} keypoints for this topology, got ${got}`,
  };
}

/** seq and t of a frame: their types and ranges, then their order after the last accepted frame. */
function checkOrder(
  seq: unknown,
  t: unknown,
  lastSeq: number,
  lastT: number,
): Rejection | undefined {
  if (typeof seq !== "number" || !Number.isInteger(seq) || seq < 0 || seq > MAX_SEQ) {
    return { reason: "FRAME_MALFORMED", message: "seq must be a non-negative integer" };
  }
  if (typeof t !== "number" || !Number.isFinite(t) || t < 0 || t > MAX_T) {
    return {
      reason: "FRAME_MALFORMED",
      message: "t must be a finite number of seconds, 0 or more",
    };
  }
  if (seq <= lastSeq) {
    return {
      reason: "SEQ_NOT_INCREASING",
      message: `seq ${seq} is not above the last accepted seq ${lastSeq}`,
    };
  }
  if (!(t > lastT)) {
    return {
      reason: "TIME_NOT_INCREASING",
      message: `t ${t} is not after the last accepted t ${lastT}`,
    };
  }
  return undefined;
}

/** Checks keypoint `i` and stores it in `out` (x and z scaled by the aspect ratio, z NaN without one). */
function storeKeypoint(
  out: Float64Array,
  i: number,
  aspect: number,
  x: unknown,
  y: unknown,
  z: unknown,
  v: unknown,
  hasZ: boolean,
): Rejection | undefined {
  // Number.isFinite is false for anything that is not a finite number (no coercion).
  if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z) || !Number.isFinite(v)) {
    return {
      reason: "COORDINATE_INVALID",
      message: `keypoint ${i} has a coordinate that is not a finite number`,
    };
  }
  const xn = x as number;
  const yn = y as number;
  const zn = z as number;
  const vn = v as number;
  if (xn > 1e6 || xn < -1e6 || yn > 1e6 || yn < -1e6 || zn > 1e6 || zn < -1e6) {
    return {
      reason: "COORDINATE_INVALID",
      message: `keypoint ${i} is out of any plausible range`,
    };
  }
  const o = i * 4;
  out[o] = xn * aspect;
  out[o + 1] = yn;
  out[o + 2] = hasZ ? zn * aspect : Number.NaN;
  out[o + 3] = vn < 0 ? 0 : vn > 1 ? 1 : vn;
  return undefined;
}
