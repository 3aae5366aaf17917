/**
 * The contract the service's API schemas are built from: the detection event schema
 * (detection-event.v1), the TypeBox helpers it is written with and the keypoint layouts. Leaves
 * only (TypeBox, no engine or loader), so that the gateway and services/shared/api load none of
 * the engine to describe its events.
 */
export * from "./engine/event-schema.js";
export * from "./json-schema.js";
export * from "./topology.js";
