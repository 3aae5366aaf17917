export * from "./stream-path.js";
export * from "./stream-tunnel.js";
