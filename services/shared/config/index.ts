export * from "./env.js";
export * from "./load-or-exit.js";
export * from "./service-config.js";
