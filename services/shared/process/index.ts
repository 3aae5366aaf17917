export * from "./admin-server.js";
export * from "./admission-gate.js";
export * from "./listen.js";
export * from "./supervision.js";
