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
  type HumanConstructor,
  type HumanLike,
  keypointsOf,
  loadPoseModel,
  POSE_MODEL_FILE,
  type PoseInput,
  type PoseModel,
  type PoseModelOptions,
} from "./pose-model.js";
export {
  loaded,
  openVideoFile,
  type VideoPosesOptions,
  type VideoProgress,
  videoPoses,
} from "./video-file.js";
