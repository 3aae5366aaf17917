export * from "./reasons.js";
export * from "./service-error.js";
