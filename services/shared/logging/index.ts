export * from "./logger.js";
export * from "./process-warnings.js";
export { redactedQuery } from "./query-redaction.js";
export * from "./redaction.js";
export * from "./request-context.js";
