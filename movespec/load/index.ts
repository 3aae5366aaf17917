export * from "./scalar-offsets.js";
export * from "./yaml-tree.js";
