import { type PackedFrames, packedFrameBytes } from "@movement-detection/movespec";
import { BINARY_FRAMES_HEADER_BYTES, BINARY_FRAMES_VERSION } from "@movement-detection/shared/api";
import { StreamWarning } from "../reasons.js";

/** A binary frames message whose header or size is wrong: answered with a warning, nothing counted. */
export interface BinaryFramesProblem {
  readonly code: string;
  readonly message: string;
}

/**
 * Reads the header of a binary frames message (services/shared/api/stream.ts, docs/realtime.md)
 * for a session of `keypointCount` keypoints per frame, and checks that the message holds exactly
 * the frames it announces. The frames themselves are checked one by one by the engine, as JSON
 * frames are. No byte is copied: the frames are read where they arrived.
 */
export function readBinaryFrames(
  data: Buffer,
  keypointCount: number,
): PackedFrames | BinaryFramesProblem {
  if (data.length < BINARY_FRAMES_HEADER_BYTES) {
    return invalid(
      `a binary frames message starts with an 8-byte header; got ${data.length} bytes`,
    );
  }
  const view = new DataView(data.buffer, data.byteOffset, data.length);
  const version = view.getUint8(0);
  if (version !== BINARY_FRAMES_VERSION) {
    return invalid(
      `unknown binary frames layout version ${version} (expected ${BINARY_FRAMES_VERSION})`,
    );
  }
  const values = view.getUint8(1);
  if (values < 2 || values > 4) {
    return invalid(`values per keypoint must be 2, 3 or 4; got ${values}`);
  }
  const keypoints = view.getUint16(2, true);
  if (keypoints !== keypointCount) {
    return {
      code: "KEYPOINT_COUNT_MISMATCH",
      message: `expected ${keypointCount} keypoints for this topology, got ${keypoints}`,
    };
  }
  const count = view.getUint32(4, true);
  if (count === 0) return invalid("a binary frames message holds at least one frame");
  const expected = BINARY_FRAMES_HEADER_BYTES + count * packedFrameBytes(keypoints, values);
  if (data.length !== expected) {
    return invalid(
      `${count} frames of ${keypoints} keypoints × ${values} values take ${expected} bytes; the message has ${data.length}`,
    );
  }
  return {
    view,
    offset: BINARY_FRAMES_HEADER_BYTES,
    count,
    valuesPerKeypoint: values as PackedFrames["valuesPerKeypoint"],
  };
}

export function isBinaryFramesProblem(
  read: PackedFrames | BinaryFramesProblem,
): read is BinaryFramesProblem {
  return "code" in read;
}

function invalid(message: string): BinaryFramesProblem {
  return { code: StreamWarning.binaryInvalid, message };
}
