/**
 * A video file as a recording: the SDK's camera kit (sdk/src/camera/video-file.ts, the code
 * `movespec extract` runs too) reads every frame through the camera's pose model, each frame
 * timed by the video, not by the wall clock.
 */
import { openVideoFile, type VideoProgress, videoPoses } from "@movement-detection/sdk/camera";
import { poseModel } from "./camera.js";
import type { RecordedFrame, Recording } from "./recording.js";

/** What the file input and a drop take as a video: the browser decides whether it plays it. */
export function isVideoFile(file: File): boolean {
  return file.type.startsWith("video/") || /\.(mp4|m4v|mov|webm|mkv|ogv)$/i.test(file.name);
}

export interface VideoReading extends VideoProgress {
  /** Frames read per second of wall time, so far. */
  readonly framesPerSecond: number;
}

/** The progress line: how far through the video, how fast, how many frames held a person. */
export function readingText(name: string, p: VideoReading): string {
  const percent = p.duration > 0 ? Math.min(100, Math.round((p.mediaTime / p.duration) * 100)) : 0;
  return `Reading ${name}: ${p.frames} frames (${p.framesWithPose} with a pose), ${p.mediaTime.toFixed(1)} of ${p.duration.toFixed(1)} s (${percent} %), ${p.framesPerSecond.toFixed(1)} frames/s.`;
}

/**
 * Every frame of `file` through the pose model, shown in `video` as it is read. Rejects with an
 * AbortError when `signal` aborts (nothing is kept of a video not read whole), and with the
 * browser's words when it cannot play the file.
 */
export async function recordingFromVideo(
  file: File,
  video: HTMLVideoElement,
  options: { signal: AbortSignal; onProgress: (reading: VideoReading) => void },
): Promise<{ recording: Recording; backend: string; framesPerSecond: number }> {
  const model = await poseModel();
  options.signal.throwIfAborted();
  const opened = await openVideoFile(file, video);
  const started = performance.now();
  const rate = (frames: number) => frames / Math.max((performance.now() - started) / 1000, 1e-3);
  try {
    const frames: RecordedFrame[] = [];
    for await (const frame of videoPoses(video, model, {
      signal: options.signal,
      onProgress: (p) => options.onProgress({ ...p, framesPerSecond: rate(p.frames) }),
    })) {
      frames.push({ seq: frame.seq, t: frame.t, keypoints: frame.keypoints ?? null });
    }
    const aspectRatio = video.videoWidth / video.videoHeight || undefined;
    return {
      recording: { name: file.name, frames, problems: [], rejected: 0, aspectRatio },
      backend: model.backend,
      framesPerSecond: rate(frames.length),
    };
  } finally {
    opened.release();
  }
}
