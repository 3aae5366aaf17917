/**
 * Every code a validation issue can carry, with its severity: the closed vocabulary of `load()`.
 * Errors prevent loading; warnings do not. docs/movespec.md#validation-issues documents each one
 * (a test keeps the two in step), and `IssueList` accepts an error code only as an error and a
 * warning code only as a warning, so a typo or a misfiled code fails the type check.
 */
import type { Severity } from "./issues.js";

export const ISSUE_CODES = {
  // The YAML itself, and the limits on hostile input (see load/limits.ts).
  YAML_SYNTAX: "error",
  YAML_DUPLICATE_KEY: "error",
  YAML_MULTIPLE_DOCUMENTS: "error",
  YAML_TOO_LARGE: "error",
  YAML_LINE_TOO_LONG: "error",
  YAML_TOO_DEEP: "error",
  YAML_TOO_MANY_NODES: "error",
  YAML_TOO_MANY_ALIASES: "error",
  YAML_SCALAR_TOO_LONG: "error",
  YAML_TAG_NOT_ALLOWED: "error",
  TOO_MANY_DEFINITIONS: "error",
  // The document's shape.
  VERSION_MISSING: "error",
  VERSION_UNSUPPORTED: "error",
  FIELD_REQUIRED: "error",
  UNKNOWN_KEY: "error",
  TYPE_MISMATCH: "error",
  VALUE_INVALID: "error",
  DURATION_INVALID: "error",
  NAME_INVALID: "error",
  DUPLICATE_ID: "error",
  // Expressions, landmarks and signals.
  EXPRESSION_SYNTAX: "error",
  EXPRESSION_TYPE: "error",
  UNKNOWN_FUNCTION: "error",
  ARGUMENT_COUNT: "error",
  ARGUMENT_INVALID: "error",
  UNKNOWN_LANDMARK: "error",
  LANDMARK_NOT_IN_TOPOLOGY: "error",
  UNKNOWN_SIGNAL: "error",
  SIGNAL_CYCLE: "error",
  CONDITION_NEEDS_SIGNAL: "error",
  SIDE_REQUIRED: "error",
  ADAPTIVE_SOURCE_INVALID: "error",
  ADAPTIVE_MIN_RANGE_UNREACHABLE: "error",
  // Phases, the repetition cycle and what to detect.
  UNKNOWN_PHASE: "error",
  PHASE_UNREACHABLE: "error",
  PHASES_OVERLAP: "error",
  PHASE_NO_HYSTERESIS: "error",
  PHASE_EXIT_OVERLAPS_ENTER: "error",
  CYCLE_TOO_SHORT: "error",
  CYCLE_REPEATED_PHASE: "error",
  WITHIN_INVALID: "error",
  NOTHING_TO_DETECT: "error",
  // `fit:`, the numbers movespec fit may choose.
  FIT_TARGET_INVALID: "error",
  // A bug in the loader, reported instead of thrown.
  LOAD_FAILED: "error",
  // Warnings: the MoveSpec loads, but probably does not do what its author meant.
  THRESHOLD_OUT_OF_RANGE: "warning",
  PHASE_UNUSED: "warning",
  SIGNAL_UNUSED: "warning",
  SMOOTHING_LAG: "warning",
  SIDES_UNUSED: "warning",
  ADAPTIVE_MIN_RANGE_SMALL: "warning",
  ANGLE_IN_RADIANS: "warning",
  DURATION_BARE_NUMBER: "warning",
  GEOMETRY_DEGENERATE: "warning",
} as const satisfies Record<string, Severity>;

export type IssueCode = keyof typeof ISSUE_CODES;
export type ErrorCode = {
  [C in IssueCode]: (typeof ISSUE_CODES)[C] extends "error" ? C : never;
}[IssueCode];
export type WarningCode = Exclude<IssueCode, ErrorCode>;

export function isIssueCode(value: unknown): value is IssueCode {
  return typeof value === "string" && Object.hasOwn(ISSUE_CODES, value);
}
