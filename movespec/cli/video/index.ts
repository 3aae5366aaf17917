export * from "./extract-command.js";
export * from "./extract-video.js";
