export * from "./config.js";
export * from "./trace-context.js";
export * from "./tracing.js";
