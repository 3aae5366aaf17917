import type { DetectionEvent, End, MdsClient } from "@movement-detection/sdk";
import {
  type CounterStats,
  loadPoseModel,
  type PoseModel,
  startCounter,
} from "@movement-detection/sdk/camera";
import { drawSkeleton } from "./skeleton.js";

/**
 * The live camera: the SDK's camera kit (sdk/src/camera), the same code any web app runs. The
 * gateway serves the pose model's files (gateway/studio/pose-model.ts); loaded when the camera
 * starts.
 */
const HUMAN_SCRIPT_URL = "/studio/vendor/human.esm.js";
const POSE_MODEL_BASE_URL = "/studio/models/";
const WASM_BASE_URL = "/studio/vendor/";

export type CameraStats = CounterStats;

export interface LiveCamera {
  /** Stops the camera and the model, finalizes the session and gives its `end`. */
  stop(): Promise<End | undefined>;
}

let model: Promise<PoseModel> | undefined;

/** The camera kit's pose model, loaded once for the camera and the video files alike. */
export function poseModel(): Promise<PoseModel> {
  model ??= loadPoseModel({
    libraryUrl: HUMAN_SCRIPT_URL,
    modelBaseUrl: POSE_MODEL_BASE_URL,
    wasmBaseUrl: WASM_BASE_URL,
  }).catch((error: unknown) => {
    model = undefined;
    throw error;
  });
  return model;
}

/**
 * The camera as a `live` session: each video frame goes through the pose model in the page, its
 * keypoints to the service over the realtime stream (one frame per message), and the skeleton is
 * drawn over the video. Events come back through `onEvent` as the service emits them.
 */
export async function startLiveCamera(input: {
  client: MdsClient;
  projectId: string;
  movespecVersionId: string;
  video: HTMLVideoElement;
  overlay: HTMLCanvasElement;
  onEvent: (event: DetectionEvent) => void;
  onNotice: (text: string) => void;
  /** The stream lost its connection and tries again (`attempt` from 1). */
  onReconnect: (attempt: number) => void;
  /** The stream is attached: at the start, and again after each reconnect. */
  onReady: () => void;
  /** Frames stopped going to the service (the stream could not reconnect, the model failed). */
  onFailure: (error: unknown) => void;
  onStats: (stats: CameraStats) => void;
}): Promise<LiveCamera> {
  const media = await navigator.mediaDevices.getUserMedia({
    video: { width: { ideal: 640 }, height: { ideal: 480 } },
    audio: false,
  });
  try {
    input.video.srcObject = media;
    await input.video.play();
    const model = await poseModel();
    const session = await input.client.createSession({
      body: {
        project_id: input.projectId,
        movespec_version_id: input.movespecVersionId,
        mode: "live",
      },
    });
    const width = input.video.videoWidth || 640;
    const height = input.video.videoHeight || 480;
    input.overlay.width = width;
    input.overlay.height = height;
    const counter = await startCounter({
      session,
      model,
      source: input.video,
      stream: {
        aspectRatio: width / height,
        onEvent: input.onEvent,
        onNotice: (notice) => input.onNotice(`${notice.code}: ${notice.message}`),
        onReconnect: (attempt) => input.onReconnect(attempt),
        onReady: () => input.onReady(),
      },
      onFrame: (frame, stats) => {
        // The overlay is hidden from screen readers (the status line says what it shows); the
        // bones drawn are kept on it for whoever inspects the page.
        input.overlay.dataset.bones = String(
          drawSkeleton(input.overlay, frame, width / height, null),
        );
        if (stats.frames % 5 === 0 || stats.frames < 5) input.onStats(stats);
      },
      onFailure: input.onFailure,
    });
    return {
      async stop() {
        try {
          return await counter.stop();
        } finally {
          for (const track of media.getTracks()) track.stop();
          input.video.srcObject = null;
        }
      },
    };
  } catch (error) {
    for (const track of media.getTracks()) track.stop();
    input.video.srcObject = null;
    throw error;
  }
}
