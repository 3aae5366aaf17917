export * from "./mongo-failure.js";
export * from "./store-errors.js";
export * from "./ttl-index.js";
