/**
 * The camera kit (browsers): the pose model in the page, a camera or a video file in, pose
 * frames and repetition events out. See sdk/README.md, "Camera kit".
 */
export {
  type Counter,
  type CounterOptions,
  type CounterStats,
  startCounter,
} from "./counter.js";
export {
  COCO_ORDER,
  chooseBackend,
  DEFAULT_POSE_MODEL,
  type HumanConstructor,
  type HumanLike,
  keypointsOf,
  loadPoseModel,
  POSE_MODEL_FILE,
  POSE_MODELS,
  type PoseInput,
  type PoseModel,
  type PoseModelName,
  type PoseModelOptions,
  poseModelFiles,
} from "./pose-model.js";
export {
  loaded,
  openVideoFile,
  type VideoPosesOptions,
  type VideoProgress,
  videoPoses,
} from "./video-file.js";
