export * from "./events.js";
