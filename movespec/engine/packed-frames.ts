/**
 * Frames packed in bytes, for clients that send binary messages (docs/realtime.md, "Binary
 * frames"): the engine reads the keypoints straight out of the message, with no object per frame
 * or per keypoint. Little-endian; every frame has the same size, 8-byte aligned:
 *
 *   offset 0   float64  seq (an integer)
 *   offset 8   float64  t (seconds)
 *   offset 16  uint32   flags: bit 0 set = no person in the picture (the values are ignored)
 *   offset 20  uint32   reserved, 0
 *   offset 24  float32  keypointCount × valuesPerKeypoint: x, y[, z[, visibility]] per keypoint
 */

export const PACKED_FRAME_HEADER_BYTES = 24;
/** Flag bit 0: the pose model found no person (the JSON form's `keypoints: null`). */
export const PACKED_NO_PERSON = 1;

export type ValuesPerKeypoint = 2 | 3 | 4;

/** Bytes of one packed frame. */
export function packedFrameBytes(keypointCount: number, valuesPerKeypoint: number): number {
  return PACKED_FRAME_HEADER_BYTES + 4 * keypointCount * valuesPerKeypoint;
}

/** `count` frames of `valuesPerKeypoint` values per keypoint, the first at `offset` of `view`. */
export interface PackedFrames {
  readonly view: DataView;
  readonly offset: number;
  readonly count: number;
  readonly valuesPerKeypoint: ValuesPerKeypoint;
}
