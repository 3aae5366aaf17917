import { BINARY_FRAMES, type PoseFrame, type Ready } from "./generated/api.js";

/** Keypoints per frame of each topology (movespec's topologies). */
export const KEYPOINTS_PER_FRAME: Readonly<Record<Ready["topology"], number>> = {
  "blazepose-33": 33,
  "coco-17": 17,
};

/**
 * Frames as one binary frames message (docs/realtime.md, "Binary frames"): an 8-byte header, then
 * per frame float64 seq, float64 t, uint32 flags, uint32 0 and the keypoints' values as float32,
 * little-endian. Undefined when the frames do not share one layout (every keypoint of every frame
 * with the same number of values, `keypointCount` keypoints): send those as JSON.
 */
export function encodeBinaryFrames(
  frames: readonly PoseFrame[],
  keypointCount: number,
): Uint8Array | undefined {
  const values = valuesPerKeypoint(frames, keypointCount);
  if (values === undefined || frames.length === 0) return undefined;
  const frameBytes = BINARY_FRAMES.frame_header_bytes + 4 * keypointCount * values;
  const bytes = new Uint8Array(BINARY_FRAMES.header_bytes + frames.length * frameBytes);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, BINARY_FRAMES.version);
  view.setUint8(1, values);
  view.setUint16(2, keypointCount, true);
  view.setUint32(4, frames.length, true);
  let at = BINARY_FRAMES.header_bytes;
  for (const frame of frames) {
    view.setFloat64(at, frame.seq, true);
    view.setFloat64(at + 8, frame.t, true);
    view.setUint32(at + 16, frame.keypoints === null ? BINARY_FRAMES.no_person_flag : 0, true);
    let value = at + BINARY_FRAMES.frame_header_bytes;
    if (frame.keypoints !== null) {
      for (const keypoint of frame.keypoints) {
        for (let k = 0; k < values; k++) view.setFloat32(value + 4 * k, keypoint[k], true);
        value += 4 * values;
      }
    }
    at += frameBytes;
  }
  return bytes;
}

/** The values per keypoint all these frames share (2, 3 or 4), or undefined. */
function valuesPerKeypoint(
  frames: readonly PoseFrame[],
  keypointCount: number,
): number | undefined {
  let values: number | undefined;
  for (const frame of frames) {
    if (frame.keypoints === null) continue;
    if (frame.keypoints.length !== keypointCount) return undefined;
    for (const keypoint of frame.keypoints) {
      values ??= keypoint.length;
      if (keypoint.length !== values || values < 2 || values > 4) return undefined;
    }
  }
  return values ?? 2;
}
