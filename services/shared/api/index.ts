/**
 * The public contract as schemas: the one source of truth for every request and response body of
 * the HTTP API and every message of the realtime stream. The gateway validates with them, the
 * detection service checks `hello` with them, and the OpenAPI / AsyncAPI documents
 * (gateway/api-docs) and the SDK's types (sdk/) are generated from them.
 */
export * from "./error-envelope.js";
export * from "./requests.js";
export * from "./resources.js";
export * from "./schema-kit.js";
export * from "./stream.js";
export * from "./timestamps.js";
export * from "./validation.js";
