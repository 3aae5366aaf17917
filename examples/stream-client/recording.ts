import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import type { PoseFrame } from "@movement-detection/sdk";

/** A recording that cannot be read: its message names the file and the line. */
export class RecordingError extends Error {}

/** A recording of pose frames: JSON Lines (`{"seq", "t", "keypoints"}` per line), optionally gzipped. */
export function readRecording(path: string): PoseFrame[] {
  const bytes = readFileSync(path);
  let text: string;
  try {
    text = (path.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
  } catch (error) {
    throw new RecordingError(`${path}: not gzip (${(error as Error).message})`);
  }
  const frames: PoseFrame[] = [];
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    try {
      frames.push(JSON.parse(line) as PoseFrame);
    } catch (error) {
      throw new RecordingError(
        `${path}, line ${index + 1}: not JSON (${(error as Error).message})`,
      );
    }
  }
  return frames;
}

/**
 * Sends `frames` through `send`: as fast as the server takes them (`replay`), or at the pace of
 * their timestamps (`live`, optionally `speed` times faster).
 */
export async function playFrames(
  frames: readonly PoseFrame[],
  send: (frame: PoseFrame) => Promise<void>,
  options: { pace: "live" | "replay"; speed?: number } = { pace: "replay" },
): Promise<void> {
  const started = performance.now();
  const t0 = frames[0]?.t ?? 0;
  for (const frame of frames) {
    if (options.pace === "live") {
      const due = started + ((frame.t - t0) * 1000) / (options.speed ?? 1);
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    await send(frame);
  }
}
