export * from "./confusables.js";
export * from "./display-name.js";
export * from "./json-budget.js";
export * from "./search-words.js";
export * from "./unicode-scripts.js";
