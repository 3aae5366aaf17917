/**
 * Pose frames from a video file, frame by frame, timed by the video itself: each frame's `t` is
 * its presentation time in the file (`requestVideoFrameCallback`'s `mediaTime`), not the wall
 * clock, so a recording made faster or slower than real time has the movement's own timing.
 *
 * The video plays muted and is paused on each new frame while the model reads it, so no frame
 * is skipped however slow the model is; the browser decodes (MP4/H.264, WebM: what its <video>
 * plays).
 */
import type { PoseFrame } from "../generated/api.js";
import { drawFitted, type PoseModel } from "./pose-model.js";

export interface VideoProgress {
  /** Frames read so far. */
  readonly frames: number;
  /** Frames in which the model found a person. */
  readonly framesWithPose: number;
  /** The last frame's time in the video, and the video's length, in seconds. */
  readonly mediaTime: number;
  readonly duration: number;
}

export interface VideoPosesOptions {
  /** Stops the reading: the iteration ends with an AbortError (the frames so far were yielded). */
  readonly signal?: AbortSignal;
  /** After each frame. */
  readonly onProgress?: (progress: VideoProgress) => void;
}

/** The video of a file, ready to read: pass it to videoPoses, revoke with `release`. */
export async function openVideoFile(
  file: Blob,
  video: HTMLVideoElement = document.createElement("video"),
): Promise<{ video: HTMLVideoElement; release(): void }> {
  const url = URL.createObjectURL(file);
  video.src = url;
  try {
    await loaded(video);
  } catch (error) {
    URL.revokeObjectURL(url);
    throw error;
  }
  return {
    video,
    release() {
      video.removeAttribute("src");
      video.load();
      URL.revokeObjectURL(url);
    },
  };
}

/** Resolves once the video's first frame can be shown; rejects when the browser cannot play it. */
export function loaded(video: HTMLVideoElement): Promise<void> {
  if (video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = () => {
      video.removeEventListener("loadeddata", ok);
      video.removeEventListener("error", failed);
    };
    const ok = () => {
      done();
      resolve();
    };
    const failed = () => {
      done();
      reject(
        new Error(`the browser cannot play this video (${video.error?.message || "unsupported"})`),
      );
    };
    video.addEventListener("loadeddata", ok);
    video.addEventListener("error", failed);
  });
}

/**
 * Every frame of `video` (from its start) through the model, as pose frames with the video's
 * own timestamps. The element is left paused at its end.
 *
 * The video plays and is paused at each new frame. Each frame is copied (to a canvas at most
 * MAX_INPUT_SIDE wide) in the very callback that reports it, so its keypoints and its time
 * belong together even if the player shows one more frame before the pause takes. A frame the
 * player skips (a gap of more than 1.5 frame durations: the shortest step between a few frames
 * played first, then between any two) is fetched by seeking back to it, then forward again: a
 * seek lands on the frame on show at the time sought, so no frame is read twice. A video whose
 * first frame is not at 0 s has it read as at 0.
 */
export async function* videoPoses(
  video: HTMLVideoElement,
  model: PoseModel,
  options: VideoPosesOptions = {},
): AsyncGenerator<PoseFrame> {
  const { signal, onProgress } = options;
  signal?.throwIfAborted();
  await loaded(video);
  video.muted = true;
  video.pause();
  const still = document.createElement("canvas");
  const grab = () => drawFitted(video, still);
  let seq = 0;
  let framesWithPose = 0;
  const read = async (t: number): Promise<PoseFrame> => {
    const keypoints = await model.detect(still);
    if (keypoints) framesWithPose++;
    return { seq: 0, t, keypoints };
  };
  const numbered = (frame: PoseFrame): PoseFrame => {
    frame.seq = seq++;
    onProgress?.({ frames: seq, framesWithPose, mediaTime: frame.t, duration: video.duration });
    return frame;
  };
  try {
    // A video just loaded shows its first frame; else the first frame is on show once the
    // seek to the start is done.
    // The frame duration first, to know a skipped frame from the first gap on: the shortest
    // step between a few frames played (a player may skip one of them, not all).
    const times = [video.currentTime];
    for (let i = 0; i < FRAMES_TO_LEARN_THE_STEP && !video.ended; i++) {
      const t = await playOneFrame(video, () => {}, signal);
      if (t === undefined) break;
      times.push(t);
    }
    let step = Number.POSITIVE_INFINITY;
    for (let i = 1; i < times.length; i++)
      if (times[i] > times[i - 1]) step = Math.min(step, times[i] - times[i - 1]);
    // Back to the first frame (a video just loaded that did not move shows it already).
    const start = video.currentTime === 0 ? undefined : await seekTo(video, 0, grab, signal);
    if (start === undefined) grab();
    let last = start ?? 0;
    yield numbered(await read(last));
    for (;;) {
      signal?.throwIfAborted();
      // play() on an ended video would start it again from the beginning.
      if (video.ended) break;
      const mediaTime = await playOneFrame(video, grab, signal);
      if (mediaTime === undefined) {
        // The player may end without presenting the last frame or two: fetch them by seeking.
        while (video.duration - last > 1.5 * step) {
          const missed = await seekTo(video, last + 1.25 * step, grab, signal);
          if (missed === undefined || missed <= last) break;
          yield numbered(await read(missed));
          last = missed;
        }
        break;
      }
      if (mediaTime <= last) continue;
      if (mediaTime - last > 1.5 * step) {
        // Skipped: go back for the frames before this one, then return to it. Frames are read
        // in their order: the model crops each picture around the body it found in the last.
        while (mediaTime - last > 1.5 * step) {
          const missed = await seekTo(video, last + 1.25 * step, grab, signal);
          if (missed === undefined || missed <= last || missed >= mediaTime) break;
          yield numbered(await read(missed));
          last = missed;
        }
        const back = await seekTo(video, mediaTime + 0.25 * step, grab, signal);
        // No new frame shown: none was missed after all, and this one is still on show.
        if (back === undefined) grab();
        yield numbered(await read(mediaTime));
      } else {
        step = Math.min(step, mediaTime - last);
        yield numbered(await read(mediaTime));
      }
      last = mediaTime;
    }
  } finally {
    video.pause();
  }
}

/** Plays until the next frame shows, grabs it, pauses: its media time, or undefined at the end. */
async function playOneFrame(
  video: HTMLVideoElement,
  grab: () => void,
  signal?: AbortSignal,
): Promise<number | undefined> {
  const next = nextFrame(video, grab, signal);
  await video.play();
  const mediaTime = await next;
  video.pause();
  return mediaTime;
}

/**
 * Seeks, grabs the frame shown there and resolves with its media time: undefined when the seek
 * showed no new frame (it landed on the frame already on show), which the browser tells by
 * presenting nothing for a while after `seeked` (a few rendering steps, and at least
 * SEEK_SETTLE_MS: on a busy machine a new frame can take seconds to be presented). A
 * frame presented later than the time sought is one the player still had from playing, not
 * the seek's: it is passed over.
 */
async function seekTo(
  video: HTMLVideoElement,
  time: number,
  grab: () => void,
  signal?: AbortSignal,
): Promise<number | undefined> {
  let settled = false;
  const shown = (async () => {
    for (;;) {
      const t = await nextFrame(video, () => !settled && grab(), signal, time);
      if (t === undefined || t <= time + 1e-6 || settled) return t;
    }
  })();
  const seeked = once(video, "seeked");
  video.currentTime = time;
  await seeked;
  const quiet = Promise.all([renderingSteps(3), delay(SEEK_SETTLE_MS)]).then(() => {
    settled = true;
    return undefined;
  });
  return Promise.race([shown, quiet]);
}

const SEEK_SETTLE_MS = 4000;
const FRAMES_TO_LEARN_THE_STEP = 4;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves after `count` animation frames (rendering opportunities) of the page. */
async function renderingSteps(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => requestAnimationFrame(resolve));
}

/**
 * The media time of the next frame presented (undefined when the video ended first); `grab`
 * runs in the frame's own callback, while that frame is the one on show. With `notAfter`,
 * a frame presented later than that is not grabbed (and its time is still answered).
 */
function nextFrame(
  video: HTMLVideoElement,
  grab: () => void,
  signal?: AbortSignal,
  notAfter = Number.POSITIVE_INFINITY,
): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    let handle = 0;
    const finish = () => {
      video.cancelVideoFrameCallback(handle);
      video.removeEventListener("ended", ended);
      signal?.removeEventListener("abort", aborted);
    };
    const ended = () => {
      finish();
      resolve(undefined);
    };
    const aborted = () => {
      finish();
      reject(signal?.reason);
    };
    handle = video.requestVideoFrameCallback((_now, metadata) => {
      finish();
      if (metadata.mediaTime <= notAfter + 1e-6) grab();
      resolve(metadata.mediaTime);
    });
    video.addEventListener("ended", ended);
    signal?.addEventListener("abort", aborted);
  });
}

function once(target: EventTarget, type: string): Promise<void> {
  return new Promise((resolve) => target.addEventListener(type, () => resolve(), { once: true }));
}
