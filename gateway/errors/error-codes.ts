import { Code } from "@connectrpc/connect";
import type { ErrorReason } from "@movement-detection/shared/errors";

/** The contract's canonical error codes (docs/errors.md). */
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

/**
 * Every reason's public code: total over the closed vocabulary, so a new reason cannot ship
 * without its status, and a typo is a type error. A reason decides the code (YAML_TOO_LARGE is 413
 * whatever gRPC code carried it); the gRPC code only decides for errors without a reason.
 */
export const CODE_FROM_REASON: Readonly<Record<ErrorReason, ApiErrorCode>> = {
  DEPENDENCY_UNAVAILABLE: "unavailable",
  SERVICE_NOT_READY: "unavailable",
  DEADLINE_EXCEEDED: "deadline_exceeded",
  INTERNAL: "internal",
  FIELD_REQUIRED: "invalid_argument",
  FIELD_INVALID: "invalid_argument",
  LIMIT_OUT_OF_RANGE: "invalid_argument",
  TOKEN_MISSING: "unauthenticated",
  TOKEN_INVALID: "unauthenticated",
  TOKEN_EXPIRED: "unauthenticated",
  PROJECT_MISMATCH: "permission_denied",
  PROJECT_NOT_FOUND: "not_found",
  PROJECT_ARCHIVED: "failed_precondition",
  MOVESPEC_NOT_FOUND: "not_found",
  CONCURRENT_MODIFICATION: "aborted",
  IDEMPOTENCY_KEY_REUSED: "failed_precondition",
  WRITE_CONFLICT: "aborted",
  ALREADY_EXISTS: "already_exists",
  INVALID_ARGUMENT: "invalid_argument",
  NOT_FOUND: "not_found",
  PERMISSION_DENIED: "permission_denied",
  UNAUTHENTICATED: "unauthenticated",
  FAILED_PRECONDITION: "failed_precondition",
  ABORTED: "aborted",
  RESOURCE_EXHAUSTED: "resource_exhausted",
  CREDENTIAL_INVALID: "unauthenticated",
  SCOPE_NOT_GRANTED: "permission_denied",
  ORGANIZATION_NOT_FOUND: "not_found",
  CREDENTIAL_NOT_FOUND: "not_found",
  SLUG_TAKEN: "already_exists",
  RATE_LIMITED: "resource_exhausted",
  SIGNING_KEYS_MANAGED_EXTERNALLY: "failed_precondition",
  MOVESPEC_ARCHIVED: "failed_precondition",
  VERSION_NOT_FOUND: "not_found",
  VERSION_NOT_IN_MOVESPEC: "invalid_argument",
  DRAFT_INVALID: "failed_precondition",
  NO_RELEASED_VERSION: "failed_precondition",
  ETAG_MISMATCH: "precondition_failed",
  YAML_TOO_LARGE: "payload_too_large",
  NAME_CONFUSABLE: "already_exists",
  SESSION_NOT_FOUND: "not_found",
  SESSION_EXPIRED: "not_found",
  SESSION_TERMINAL: "failed_precondition",
  SESSION_QUOTA_EXCEEDED: "resource_exhausted",
  CONTRACT_UNSUPPORTED: "invalid_argument",
  MOVESPEC_UNLOADABLE: "failed_precondition",
  // An internal caller refused: the deployment is wrong, not the client's request.
  WORKLOAD_UNAUTHENTICATED: "internal",
  WORKLOAD_NOT_ALLOWED: "internal",
  USER_TOKEN_NOT_ACCEPTED: "internal",
  CLIENT_ADDRESS_NOT_ALLOWED: "internal",
  ROUTE_NOT_FOUND: "not_found",
  METHOD_NOT_ALLOWED: "method_not_allowed",
  SCOPE_MISSING: "permission_denied",
  MALFORMED_JSON: "invalid_argument",
  BODY_NOT_OBJECT: "invalid_argument",
  BODY_UNREADABLE: "invalid_argument",
  BODY_TOO_LARGE: "payload_too_large",
  CONTENT_TYPE_NOT_JSON: "unsupported_media_type",
  UPGRADE_NOT_WEBSOCKET: "invalid_argument",
  MALFORMED_REQUEST: "invalid_argument",
  HEADERS_TOO_LARGE: "payload_too_large",
  SESSION_CREATIONS_BUSY: "unavailable",
};

/** The reason an error without one gets, by its public code. */
export const REASON_FROM_CODE: Readonly<Record<ApiErrorCode, ErrorReason>> = {
  invalid_argument: "INVALID_ARGUMENT",
  unauthenticated: "UNAUTHENTICATED",
  permission_denied: "PERMISSION_DENIED",
  not_found: "NOT_FOUND",
  method_not_allowed: "METHOD_NOT_ALLOWED",
  already_exists: "ALREADY_EXISTS",
  failed_precondition: "FAILED_PRECONDITION",
  precondition_failed: "FAILED_PRECONDITION",
  aborted: "ABORTED",
  payload_too_large: "BODY_TOO_LARGE",
  unsupported_media_type: "CONTENT_TYPE_NOT_JSON",
  resource_exhausted: "RESOURCE_EXHAUSTED",
  internal: "INTERNAL",
  unavailable: "DEPENDENCY_UNAVAILABLE",
  deadline_exceeded: "DEADLINE_EXCEEDED",
};
