/**
 * The detection service's reasons. In gRPC errors (the public envelope's `details.reason`): its
 * group of the shared vocabulary (services/shared/errors/reasons.ts, listed in docs/errors.md).
 * The stream's `error` and `warning` codes, a session's `error_code` and the websocket close codes
 * below belong to the realtime contract instead (docs/realtime.md).
 */

/**
 * The realtime contract's codes (why a session ended, the stream's `error` and `warning` codes,
 * the websocket close codes) are part of the public contract's schemas: services/shared/api.
 */
export { CloseCode, EndReason, StreamError, StreamWarning } from "@movement-detection/shared/api";
export { Reason, SessionReason } from "@movement-detection/shared/errors";
