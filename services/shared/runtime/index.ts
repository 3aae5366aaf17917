export * from "./admin-server.js";
export * from "./grpc-server.js";
export * from "./health.js";
export * from "./listen.js";
export * from "./mongo.js";
export * from "./service-runner.js";
export * from "./supervision.js";
