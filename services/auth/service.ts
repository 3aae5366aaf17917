import { AuthService } from "../../proto/gen/auth/v1/auth_pb.js";
import type { ServiceDefinition } from "../shared/runtime/service-runner.js";
import type { AuthConfig } from "./config.js";
import { createAuthHandlers } from "./handlers.js";

export const authService: ServiceDefinition<AuthConfig> = {
  name: "auth",
  services: [AuthService],
  async start() {
    const handlers = createAuthHandlers();
    return { register: (router) => router.service(AuthService, handlers) };
  },
};
