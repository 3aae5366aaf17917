import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * The live camera's pose model, from the @vladmandic/human package (MIT): the library's browser
 * build (TensorFlow.js inside) and MoveNet SinglePose Lightning (Apache-2.0, Google), 17 COCO
 * keypoints. Only these three files are served, not the package's other models.
 */
export const HUMAN_SCRIPT_URL = "/studio/vendor/human.esm.js";
export const POSE_MODEL_BASE_URL = "/studio/models/";
export const POSE_MODEL_FILE = "movenet-lightning.json";

function humanDist(): string {
  // The package's "node" export is dist/human.node.js: its folder holds the browser build too.
  return dirname(createRequire(import.meta.url).resolve("@vladmandic/human"));
}

/** URL path to file; resolved when the Studio's routes are made (not at import: see bundle.ts). */
export function poseModelFiles(): Record<string, { path: string; type: string }> {
  const dist = humanDist();
  const models = join(dist, "..", "models");
  return {
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
