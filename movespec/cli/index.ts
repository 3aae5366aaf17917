export * from "./fit-report.js";
export * from "./labelled-recordings.js";
export * from "./main.js";
