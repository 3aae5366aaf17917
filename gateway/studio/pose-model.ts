import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * The live camera's pose model, from the @vladmandic/human package (MIT): the library's browser
 * build (TensorFlow.js inside) and MoveNet SinglePose Lightning (Apache-2.0, Google), 17 COCO
 * keypoints. Only these files are served, not the package's other models. Without a GPU the
 * model runs on TensorFlow.js's WebAssembly backend, whose binaries come from
 * @tensorflow/tfjs-backend-wasm (Apache-2.0) at the version Human bundles (4.22.0): the SIMD
 * build and the plain one for a browser without WebAssembly SIMD. The threaded build is not
 * served: it needs a cross-origin-isolated page and workers from blob: URLs.
 */
export const HUMAN_SCRIPT_URL = "/studio/vendor/human.esm.js";
export const POSE_MODEL_BASE_URL = "/studio/models/";
export const POSE_MODEL_FILE = "movenet-lightning.json";
export const WASM_BASE_URL = "/studio/vendor/";
const WASM_FILES = ["tfjs-backend-wasm.wasm", "tfjs-backend-wasm-simd.wasm"];

function humanDist(): string {
  // The package's "node" export is dist/human.node.js: its folder holds the browser build too.
  return dirname(createRequire(import.meta.url).resolve("@vladmandic/human"));
}

function tfjsWasmDist(): string {
  // Its "main" is dist/tf-backend-wasm.node.js, next to the .wasm binaries.
  return dirname(createRequire(import.meta.url).resolve("@tensorflow/tfjs-backend-wasm"));
}

/** URL path to file; resolved when the Studio's routes are made (not at import: see bundle.ts). */
export function poseModelFiles(): Record<string, { path: string; type: string }> {
  const dist = humanDist();
  const models = join(dist, "..", "models");
  const wasm = tfjsWasmDist();
  return {
    ...Object.fromEntries(
      WASM_FILES.map((name) => [
        `${WASM_BASE_URL}${name}`,
        { path: join(wasm, name), type: "application/wasm" },
      ]),
    ),
    [HUMAN_SCRIPT_URL]: {
      path: join(dist, "human.esm.js"),
      type: "text/javascript; charset=utf-8",
    },
    [`${POSE_MODEL_BASE_URL}${POSE_MODEL_FILE}`]: {
      path: join(models, POSE_MODEL_FILE),
      type: "application/json",
    },
    [`${POSE_MODEL_BASE_URL}movenet-lightning.bin`]: {
      path: join(models, "movenet-lightning.bin"),
      type: "application/octet-stream",
    },
  };
}
