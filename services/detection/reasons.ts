/**
 * The detection service's reasons. In gRPC errors (the public envelope's `details.reason`): its
 * group of the shared vocabulary (services/shared/errors/reasons.ts, listed in docs/errors.md).
 * The stream's `error` and `warning` codes, a session's `error_code` and the websocket close codes
 * below belong to the realtime contract instead (docs/realtime.md).
 */
export { Reason, SessionReason } from "../shared/errors/reasons.js";

/** Why a session ended other than `completed` (its `error_code`). */
export const EndReason = {
  attachTimeout: "ATTACH_TIMEOUT",
  idleTimeout: "IDLE_TIMEOUT",
  maxDuration: "SESSION_MAX_DURATION_EXCEEDED",
  frameLimit: "FRAME_LIMIT_EXCEEDED",
  checkpointUnusable: "CHECKPOINT_UNUSABLE",
} as const;

/** `error` messages sent just before the server closes a stream. */
export const StreamError = {
  helloRequired: "HELLO_REQUIRED",
  helloTimeout: "HELLO_TIMEOUT",
  tokenInvalid: "TOKEN_INVALID",
  tokenExpired: "TOKEN_EXPIRED",
  tokenSessionMismatch: "TOKEN_SESSION_MISMATCH",
  sessionNotFound: "SESSION_NOT_FOUND",
  sessionTerminal: "SESSION_TERMINAL",
  replaced: "REPLACED",
  leaseLost: "LEASE_LOST",
  leaseUnavailable: "LEASE_UNAVAILABLE",
  rateLimited: "RATE_LIMITED",
  topologyUnsupported: "TOPOLOGY_UNSUPPORTED",
  topologyMismatch: "TOPOLOGY_MISMATCH",
  serviceRestarting: "SERVICE_RESTARTING",
  serviceUnavailable: "SERVICE_UNAVAILABLE",
  internal: "INTERNAL",
} as const;

/** `warning` messages: the message (or frame) was ignored, the stream goes on. */
export const StreamWarning = {
  malformedJson: "MALFORMED_JSON",
  messageInvalid: "MESSAGE_INVALID",
  unknownType: "UNKNOWN_MESSAGE_TYPE",
  binaryUnsupported: "BINARY_NOT_SUPPORTED",
  sessionFinalizing: "SESSION_FINALIZING",
  moreRejected: "MORE_FRAMES_REJECTED",
} as const;

/** Websocket close codes of contract 1 (plus the standard ones for restarts). */
export const CloseCode = {
  normal: 1000,
  goingAway: 1001,
  policy: 1008,
  tooBig: 1009,
  internal: 1011,
  tryAgainLater: 1013,
  unauthenticated: 4401,
  unknownSession: 4404,
  replaced: 4409,
  terminal: 4410,
  rateLimited: 4429,
} as const;
