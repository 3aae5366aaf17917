import { Code } from "@connectrpc/connect";

/** The contract's canonical error codes (shared/design/contract.md, "Errors"). */
export type ApiErrorCode =
  | "invalid_argument"
  | "unauthenticated"
  | "permission_denied"
  | "not_found"
  | "method_not_allowed"
  | "already_exists"
  | "failed_precondition"
  | "precondition_failed"
  | "aborted"
  | "payload_too_large"
  | "unsupported_media_type"
  | "resource_exhausted"
  | "internal"
  | "unavailable"
  | "deadline_exceeded";

interface CodeRule {
  readonly status: number;
  readonly retryable: boolean;
}

export const API_ERROR_CODES: Readonly<Record<ApiErrorCode, CodeRule>> = {
  invalid_argument: { status: 400, retryable: false },
  unauthenticated: { status: 401, retryable: false },
  permission_denied: { status: 403, retryable: false },
  not_found: { status: 404, retryable: false },
  method_not_allowed: { status: 405, retryable: false },
  already_exists: { status: 409, retryable: false },
  failed_precondition: { status: 409, retryable: false },
  precondition_failed: { status: 412, retryable: false },
  aborted: { status: 409, retryable: true },
  payload_too_large: { status: 413, retryable: false },
  unsupported_media_type: { status: 415, retryable: false },
  resource_exhausted: { status: 429, retryable: true },
  internal: { status: 500, retryable: false },
  unavailable: { status: 503, retryable: true },
  deadline_exceeded: { status: 504, retryable: true },
};

/** How a service's gRPC code becomes a public code; reasons below may refine it. */
export const CODE_FROM_GRPC: Readonly<Record<Code, ApiErrorCode>> = {
  [Code.Canceled]: "unavailable",
  [Code.Unknown]: "internal",
  [Code.InvalidArgument]: "invalid_argument",
  [Code.DeadlineExceeded]: "deadline_exceeded",
  [Code.NotFound]: "not_found",
  [Code.AlreadyExists]: "already_exists",
  [Code.PermissionDenied]: "permission_denied",
  [Code.ResourceExhausted]: "resource_exhausted",
  [Code.FailedPrecondition]: "failed_precondition",
  [Code.Aborted]: "aborted",
  [Code.OutOfRange]: "invalid_argument",
  [Code.Unimplemented]: "internal",
  [Code.Internal]: "internal",
  [Code.Unavailable]: "unavailable",
  [Code.DataLoss]: "internal",
  [Code.Unauthenticated]: "unauthenticated",
};

/** Reasons whose public code has no gRPC twin. */
export const CODE_FROM_REASON: Readonly<Record<string, ApiErrorCode>> = {
  ETAG_MISMATCH: "precondition_failed",
  YAML_TOO_LARGE: "payload_too_large",
  BODY_TOO_LARGE: "payload_too_large",
};
