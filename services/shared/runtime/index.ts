export * from "./grpc-server.js";
export * from "./health.js";
export * from "./mongo.js";
export * from "./service-runner.js";
