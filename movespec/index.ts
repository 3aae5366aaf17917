export type {
  CameraView,
  CompiledSpec,
  FitParameter,
  FitTarget,
  FormRuleDef,
  FormSeverity,
  HoldDef,
  PhaseDef,
  RepetitionDef,
  SignalDef,
  Smoothing,
} from "./compiled-spec.js";
export type {
  Engine,
  EngineOptions,
  EngineSnapshot,
  PushManyResult,
  PushResult,
} from "./engine/engine.js";
export { createEngine, restoreEngine, supportsTopology } from "./engine/engine.js";
export type {
  DetectionEvent,
  EventSide,
  EventType,
  HoldRecord,
  RepMetrics,
  RepRecord,
  SessionSummary,
  SignalStats,
} from "./engine/events.js";
export type { RejectReason } from "./engine/frame-input.js";
export {
  PACKED_FRAME_HEADER_BYTES,
  PACKED_NO_PERSON,
  type PackedFrames,
  packedFrameBytes,
  type ValuesPerKeypoint,
} from "./engine/packed-frames.js";
export { FrameScanner, ScannedFrame } from "./engine/scanned-frame.js";
export type { SummaryRecords } from "./engine/summary.js";
export { mergeSummary } from "./engine/summary.js";
export * from "./event-text.js";
export * from "./expression/refs.js";
export type { LabelledRecording, Outcome } from "./fit/evaluate.js";
export {
  FitError,
  type FitOptions,
  type FitProgress,
  type FitResult,
  type FoldResult,
  fitMoveSpec,
  type ParameterResult,
  type RecordingResult,
} from "./fit/fit.js";
export type { Margin, Score } from "./fit/search.js";
export type { ErrorCode, IssueCode, WarningCode } from "./issue-codes.js";
export { ISSUE_CODES, isIssueCode } from "./issue-codes.js";
export type { Issue, Severity } from "./issues.js";
export { LOAD_LIMITS } from "./load/limits.js";
export type { LoadResult } from "./load/load.js";
export { load } from "./load/load.js";
export * from "./sides.js";
export { MOVESPEC_TEMPLATE } from "./template.js";
export * from "./topology.js";
