export * from "./apply.js";
export * from "./evaluate.js";
export * from "./fit.js";
export * from "./folds.js";
export * from "./scoring.js";
export * from "./search.js";
