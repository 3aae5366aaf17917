/**
 * The pose model of the camera kit: MoveNet SinglePose Lightning (17 COCO keypoints) run in the
 * page by the Human library (@vladmandic/human, MIT; TensorFlow.js inside). The SDK has no
 * dependencies, so the library is not imported here: the page serves its browser build and the
 * model's files from the npm packages (sdk/README.md, "Camera kit", lists them) and the kit loads
 * them by URL, or a bundling app passes the library's `Human` class itself.
 */

import {
  DEFAULT_POSE_MODEL,
  POSE_MODELS,
  type PoseModelName,
  poseModelFiles,
} from "./pose-models.js";

export { DEFAULT_POSE_MODEL, POSE_MODELS, type PoseModelName, poseModelFiles };

/** The part of a Human instance the kit uses (structural: the SDK does not depend on the library). */
export interface HumanLike {
  load(): Promise<void>;
  detect(input: unknown): Promise<{
    body: { keypoints: { part: string; positionRaw: number[]; score: number }[] }[];
  }>;
  readonly tf: { getBackend(): string };
}
export type HumanConstructor = new (config: Record<string, unknown>) => HumanLike;

export interface PoseModelOptions {
  /** Human's class (the `Human` export of @vladmandic/human, for a bundling app), or else `libraryUrl`. */
  readonly Human?: HumanConstructor;
  /** Where the page serves `@vladmandic/human/dist/human.esm.js` (when `Human` is not given). */
  readonly libraryUrl?: string;
  /** The folder (ending in /) serving the model's `NAME.json` and `NAME.bin` (poseModelFiles). */
  readonly modelBaseUrl: string;
  /** Which pose model (default DEFAULT_POSE_MODEL). */
  readonly model?: PoseModelName;
  /** The folder (ending in /) serving TensorFlow.js's `tfjs-backend-wasm*.wasm` binaries. */
  readonly wasmBaseUrl: string;
  /** Default: `webgl` on a real GPU, else `wasm` (see chooseBackend). */
  readonly backend?: "webgl" | "wasm" | "cpu";
  /** Lowest score of a detected body (0..1, default 0.2): below it a frame has no pose. */
  readonly minConfidence?: number;
}

/** What the model reads: anything Human's `detect` takes that shows a picture. */
export type PoseInput = HTMLVideoElement | HTMLCanvasElement | HTMLImageElement | ImageBitmap;

export interface PoseModel {
  /** The keypoints of the person in the picture in coco-17 order, or null when none was found. */
  detect(input: PoseInput): Promise<number[][] | null>;
  /** Which model reads the pictures. */
  readonly name: PoseModelName;
  /** TensorFlow.js's backend in use (`webgl`, `wasm`, `cpu`). */
  readonly backend: string;
  readonly topology: "coco-17";
}

/** MoveNet's 17 keypoints, by Human's names, in the COCO-17 order the service expects. */
export const COCO_ORDER = [
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
] as const;

/** The default model's graph file. */
export const POSE_MODEL_FILE = poseModelFiles()[0];

/**
 * Pictures are read at most this wide or high: the model sees 192 x 192 pixels (of the whole
 * picture, or of a crop around the body it found in the previous one), so more only costs
 * time (a 1080p frame takes Human five times longer than the same frame at 640).
 */
export const MAX_INPUT_SIDE = 640;

/** Loads the library (once per URL) and the model; resolves when the model can detect. */
export async function loadPoseModel(options: PoseModelOptions): Promise<PoseModel> {
  const Human = options.Human ?? (await humanFrom(options.libraryUrl));
  const name = options.model ?? DEFAULT_POSE_MODEL;
  if (!POSE_MODELS.includes(name)) throw new TypeError(`unknown pose model ${name}`);
  const human = new Human({
    backend: options.backend ?? chooseBackend(),
    modelBasePath: options.modelBaseUrl,
    wasmPath: options.wasmBaseUrl,
    warmup: "none",
    // Human's image filters run on WebGL: emulated in software without a GPU, the slowest step.
    filter: { enabled: false },
    // Every picture is read afresh: Human would otherwise answer a picture like the last one
    // with the last one's result, and the service would count repeated keypoints.
    cacheSensitivity: 0,
    debug: false,
    face: { enabled: false },
    hand: { enabled: false },
    object: { enabled: false },
    gesture: { enabled: false },
    segmentation: { enabled: false },
    body: {
      enabled: true,
      modelPath: poseModelFiles(name)[0],
      maxDetected: 1,
      minConfidence: options.minConfidence ?? 0.2,
    },
  });
  await human.load();
  const canvas = document.createElement("canvas");
  return {
    name,
    topology: "coco-17",
    get backend() {
      return human.tf.getBackend();
    },
    async detect(input) {
      return keypointsOf(await human.detect(fitted(input, canvas)));
    },
  };
}

async function humanFrom(url: string | undefined): Promise<HumanConstructor> {
  if (!url) throw new TypeError("loadPoseModel needs either Human or libraryUrl");
  // A URL in a variable: bundlers leave it to the browser.
  const module = (await import(/* @vite-ignore */ url)) as { Human?: HumanConstructor };
  if (typeof module.Human !== "function") throw new TypeError(`${url} does not export Human`);
  return module.Human;
}

/**
 * WebGL on a real GPU (fast); else WebAssembly (SIMD where the browser has it), far faster than
 * WebGL emulated in software (SwiftShader, llvmpipe: a browser without a GPU) or TensorFlow.js's
 * plain JavaScript backend, the last resort.
 */
export function chooseBackend(): "webgl" | "wasm" | "cpu" {
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
 * Keypoints that must be seen for a picture to hold a person. MoveNet always answers with a body,
 * even for an empty room (a few keypoints guessed on the wall, at low scores): a picture with fewer
 * than this is nobody in view (`keypoints: null`).
 */
export const MIN_SEEN_KEYPOINTS = 6;

/**
 * One Human result as pose-frame keypoints: [x, y, 0, score] per COCO keypoint, x and y
 * normalised to the picture; null when no body was found, or too little of one to be a person.
 */
export function keypointsOf(result: Awaited<ReturnType<HumanLike["detect"]>>): number[][] | null {
  const body = result.body[0];
  const seen = body?.keypoints.filter((k) => k.score >= SEEN_SCORE).length ?? 0;
  if (!body || seen < MIN_SEEN_KEYPOINTS) return null;
  const byName = new Map(body.keypoints.map((k) => [k.part, k]));
  return COCO_ORDER.map((name) => {
    const k = byName.get(name);
    return k ? [k.positionRaw[0], k.positionRaw[1], 0, k.score] : [0, 0, 0, 0];
  });
}

/** A picture larger than MAX_INPUT_SIDE drawn smaller into `canvas`; else the picture itself. */
function fitted(input: PoseInput, canvas: HTMLCanvasElement): PoseInput {
  const { width, height } = pictureSize(input);
  if (Math.max(width, height) <= MAX_INPUT_SIDE) return input;
  drawFitted(input, canvas);
  return canvas;
}

/** Draws the picture into `canvas`, at most MAX_INPUT_SIDE wide or high (its aspect kept). */
export function drawFitted(input: PoseInput, canvas: HTMLCanvasElement): void {
  const { width, height } = pictureSize(input);
  const scale = Math.min(1, MAX_INPUT_SIDE / Math.max(width, height, 1));
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== h) canvas.height = h;
  canvas.getContext("2d")?.drawImage(input, 0, 0, w, h);
}

function pictureSize(input: PoseInput): { width: number; height: number } {
  return input instanceof HTMLVideoElement
    ? { width: input.videoWidth, height: input.videoHeight }
    : { width: input.width, height: input.height };
}
