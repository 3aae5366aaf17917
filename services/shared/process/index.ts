export * from "./admin-server.js";
export * from "./listen.js";
export * from "./supervision.js";
