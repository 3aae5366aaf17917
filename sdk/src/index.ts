/**
 * The movement detection service's TypeScript SDK (Node 20+ and browsers, no dependencies; on
 * Node 20 the stream uses the `ws` package). See sdk/README.md.
 */
export { encodeBinaryFrames, KEYPOINTS_PER_FRAME } from "./binary-frames.js";
export { type ApiResponse, MdsClient, type MdsClientOptions } from "./client.js";
export { type Credentials, type MachineCredential, parseCredential } from "./credentials.js";
export { MdsApiError, MdsNetworkError } from "./errors.js";
export * from "./generated/api.js";
export type { RetryPolicy } from "./retry.js";
export { StreamClient, StreamClientError, type StreamClientOptions } from "./stream.js";
export type { WebSocketFactory, WebSocketLike } from "./websocket.js";
