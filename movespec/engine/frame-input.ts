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
  if (typeof frame !== "object" || frame === null || Array.isArray(frame)) {
    return { reason: "FRAME_MALFORMED", message: "a frame must be an object {seq, t, keypoints}" };
  }
  const f = frame as { seq?: unknown; t?: unknown; keypoints?: unknown };
  const seq = f.seq;
  if (typeof seq !== "number" || !Number.isInteger(seq) || seq < 0 || seq > MAX_SEQ) {
    return { reason: "FRAME_MALFORMED", message: "seq must be a non-negative integer" };
  }
  const t = f.t;
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
  if (kps.length !== keypointCount) {
    return {
      reason: "KEYPOINT_COUNT_MISMATCH",
      message: `expected ${keypointCount} keypoints for this topology, got ${kps.length}`,
    };
  }
  for (let i = 0; i < keypointCount; i++) {
    const p = kps[i];
    const n = Array.isArray(p) ? p.length : 0;
    if (n < 2 || n > 4) {
      return {
        reason: "FRAME_MALFORMED",
        message: `keypoint ${i} must be [x, y], [x, y, z] or [x, y, z, visibility]`,
      };
    }
    // Number.isFinite is false for anything that is not a finite number (no coercion).
    const x = p[0];
    const y = p[1];
    const z = n >= 3 ? p[2] : 0;
    const v = n === 4 ? p[3] : 1;
    if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z) || !Number.isFinite(v)) {
      return {
        reason: "COORDINATE_INVALID",
        message: `keypoint ${i} has a coordinate that is not a finite number`,
      };
    }
    if (x > 1e6 || x < -1e6 || y > 1e6 || y < -1e6 || z > 1e6 || z < -1e6) {
      return {
        reason: "COORDINATE_INVALID",
        message: `keypoint ${i} is out of any plausible range`,
      };
    }
    const o = i * 4;
    out[o] = x * aspect;
    out[o + 1] = y;
    out[o + 2] = n >= 3 ? z * aspect : Number.NaN;
    out[o + 3] = v < 0 ? 0 : v > 1 ? 1 : v;
  }
  return undefined;
}
