import { DetectionService } from "../../proto/gen/detection/v1/detection_pb.js";
import type { ServiceDefinition } from "../shared/runtime/service-runner.js";
import type { DetectionConfig } from "./config.js";
import { createDetectionHandlers } from "./handlers.js";

export const detectionService: ServiceDefinition<DetectionConfig> = {
  name: "detection",
  services: [DetectionService],
  async start() {
    const handlers = createDetectionHandlers();
    return { register: (router) => router.service(DetectionService, handlers) };
  },
};
