/**
 * The page `movespec extract` runs in headless Chromium (movespec/cli/video/extract-video.ts):
 * the video file chosen in its file input goes through the camera kit's videoPoses, and the
 * frames go back to Node in batches through functions Node exposes to the page.
 */

import type { PoseFrame } from "@movement-detection/sdk";
import type { VideoProgress } from "@movement-detection/sdk/camera";
import {
  loadPoseModel,
  openVideoFile,
  type PoseModelName,
  videoPoses,
} from "@movement-detection/sdk/camera";

/** What Node exposes (page.exposeFunction) and what it calls (page.evaluate). */
declare global {
  interface Window {
    movespecFrames(frames: PoseFrame[]): Promise<void>;
    movespecProgress(progress: VideoProgress): Promise<void>;
    extractVideo(): Promise<ExtractedVideo>;
  }
}

export interface ExtractedVideo {
  readonly width: number;
  readonly height: number;
  readonly duration: number;
  readonly backend: string;
  readonly model: string;
}

/** Frames per call back to Node: fewer round trips than one a frame, little held in the page. */
const BATCH = 30;

window.extractVideo = async () => {
  const input = document.querySelector<HTMLInputElement>("#file");
  const file = input?.files?.[0];
  if (!file) throw new Error("no video file chosen");
  const model = await loadPoseModel({
    libraryUrl: new URL("human.esm.js", location.href).href,
    modelBaseUrl: new URL("./", location.href).href,
    wasmBaseUrl: new URL("./", location.href).href,
    // The page's address names the model (extract-video.ts); else the kit's default.
    model: (new URLSearchParams(location.search).get("model") as PoseModelName | null) ?? undefined,
  });
  const { video, release } = await openVideoFile(
    file,
    document.querySelector<HTMLVideoElement>("#video") ?? undefined,
  );
  try {
    let batch: PoseFrame[] = [];
    for await (const frame of videoPoses(video, model, {
      onProgress: (progress) => void window.movespecProgress(progress),
    })) {
      batch.push(frame);
      if (batch.length >= BATCH) {
        await window.movespecFrames(batch);
        batch = [];
      }
    }
    if (batch.length > 0) await window.movespecFrames(batch);
    return {
      width: video.videoWidth,
      height: video.videoHeight,
      duration: video.duration,
      backend: model.backend,
      model: model.name,
    };
  } finally {
    release();
  }
};
