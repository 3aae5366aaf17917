export * from "./plot-layout.js";
export * from "./plot-svg.js";
export * from "./units.js";
