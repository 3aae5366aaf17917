import { AuthoringService } from "../../proto/gen/authoring/v1/authoring_pb.js";
import type { ServiceDefinition } from "../shared/runtime/service-runner.js";
import type { AuthoringConfig } from "./config.js";
import { createAuthoringHandlers } from "./handlers.js";

export const authoringService: ServiceDefinition<AuthoringConfig> = {
  name: "authoring",
  services: [AuthoringService],
  async start() {
    const handlers = createAuthoringHandlers();
    return { register: (router) => router.service(AuthoringService, handlers) };
  },
};
