import type { Config, Human, Result } from "@vladmandic/human";
import type { DetectionEvent, End, MdsClient } from "../../../sdk/src/index.js";
import type { RecordedFrame } from "./recording.js";
import { drawSkeleton } from "./skeleton.js";

/** Served by the gateway (gateway/studio/pose-model.ts); loaded only when the camera starts. */
const HUMAN_SCRIPT_URL = "/studio/vendor/human.esm.js";
/** Where TensorFlow.js's WebAssembly binaries are (the same folder, gateway/studio/pose-model.ts). */
const WASM_BASE_URL = "/studio/vendor/";

/** MoveNet's 17 keypoints, by Human's names, in the COCO-17 order the service expects. */
const COCO_ORDER = [
  "nose",
  "leftEye",
  "rightEye",
  "leftEar",
  "rightEar",
  "leftShoulder",
  "rightShoulder",
  "leftElbow",
  "rightElbow",
  "leftWrist",
  "rightWrist",
  "leftHip",
  "rightHip",
  "leftKnee",
  "rightKnee",
  "leftAnkle",
  "rightAnkle",
];

export interface CameraStats {
  readonly frames: number;
  readonly framesWithPose: number;
  /** Whether the latest frame held a person. */
  readonly poseNow: boolean;
  readonly framesPerSecond: number;
  readonly backend: string;
}

export interface LiveCamera {
  /** Stops the camera and the model, finalizes the session and gives its `end`. */
  stop(): Promise<End | undefined>;
}

let human: Human | undefined;

async function poseModel(): Promise<Human> {
  if (human) return human;
  const { Human: HumanClass } = (await import(
    /* @vite-ignore */ HUMAN_SCRIPT_URL as string
  )) as typeof import("@vladmandic/human");
  const config: Partial<Config> = {
    backend: chooseBackend(),
    modelBasePath: "/studio/models/",
    wasmPath: WASM_BASE_URL,
    warmup: "none",
    debug: false,
    face: { enabled: false },
    hand: { enabled: false },
    object: { enabled: false },
    gesture: { enabled: false },
    segmentation: { enabled: false },
    body: {
      enabled: true,
      modelPath: "movenet-lightning.json",
      maxDetected: 1,
      minConfidence: 0.2,
    },
  } as Partial<Config>;
  const created = new HumanClass(config);
  await created.load();
  human = created;
  return created;
}

/**
 * WebGL on a real GPU (fast); else WebAssembly (SIMD where the browser has it), far faster than
 * WebGL emulated in software (SwiftShader, llvmpipe: a browser without a GPU) or TensorFlow.js's
 * plain JavaScript backend, the last resort.
 */
function chooseBackend(): "webgl" | "wasm" | "cpu" {
  const fallback = typeof WebAssembly === "object" ? "wasm" : "cpu";
  try {
    const gl = document.createElement("canvas").getContext("webgl2");
    if (!gl) return fallback;
    const info = gl.getExtension("WEBGL_debug_renderer_info");
    const renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    return /swiftshader|llvmpipe|software/i.test(renderer) ? fallback : "webgl";
  } catch {
    return fallback;
  }
}

/** A keypoint this sure is taken as seen (MoveNet's score; the service's own visibility check follows). */
const SEEN_SCORE = 0.3;
/**
 * Keypoints that must be seen for a frame to hold a person. MoveNet always answers with a body,
 * even for an empty room (a few keypoints guessed on the wall, at low scores): a frame with fewer
 * than this is sent as nobody in view (`keypoints: null`), and not counted as one with a pose.
 */
export const MIN_SEEN_KEYPOINTS = 6;

/** One MoveNet result as a pose-frame.v1 frame (coco-17, x and y normalised, visibility = score). */
export function frameOf(result: Result, seq: number, t: number): RecordedFrame {
  const body = result.body[0];
  const seen = body?.keypoints.filter((k) => k.score >= SEEN_SCORE).length ?? 0;
  if (!body || seen < MIN_SEEN_KEYPOINTS) return { seq, t, keypoints: null };
  const byName = new Map(body.keypoints.map((k) => [k.part as string, k]));
  return {
    seq,
    t,
    keypoints: COCO_ORDER.map((name) => {
      const k = byName.get(name);
      return k ? [k.positionRaw[0], k.positionRaw[1], 0, k.score] : [0, 0, 0, 0];
    }),
  };
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
  const stopMedia = () => {
    for (const track of media.getTracks()) track.stop();
    input.video.srcObject = null;
  };
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
    const stream = input.client.openStream(session, {
      batchSize: 1,
      topology: "coco-17",
      aspectRatio: width / height,
      onEvent: input.onEvent,
      onNotice: (notice) => input.onNotice(`${notice.code}: ${notice.message}`),
      onReconnect: (attempt) => input.onReconnect(attempt),
      onReady: () => input.onReady(),
    });
    await stream.connect();

    let running = true;
    const started = performance.now();
    let frames = 0;
    let framesWithPose = 0;
    const loop = (async () => {
      while (running) {
        const result = await model.detect(input.video);
        if (!running) break;
        const frame = frameOf(result, frames, (performance.now() - started) / 1000);
        frames++;
        if (frame.keypoints) framesWithPose++;
        drawSkeleton(input.overlay, frame, width / height, null);
        await stream.send(frame as Parameters<typeof stream.send>[0]);
        if (frames % 5 === 0 || frames < 5) {
          input.onStats({
            frames,
            framesWithPose,
            poseNow: frame.keypoints !== null,
            framesPerSecond: frames / ((performance.now() - started) / 1000),
            backend: model.tf.getBackend(),
          });
        }
        // Let the page breathe between frames (events, drawing, the stop button).
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    })().catch((error: unknown) => {
      running = false;
      input.onFailure(error);
    });
    return {
      async stop() {
        running = false;
        await loop;
        stopMedia();
        try {
          return await stream.finalize();
        } finally {
          stream.close();
        }
      },
    };
  } catch (error) {
    stopMedia();
    throw error;
  }
}
