import Router from "@koa/router";
import type { GatewayState } from "../state.js";
import type { RouteDeps } from "./route-deps.js";

/** GET /api/projects/{project_id} (issue 5). */
export function projectRoutes(_deps: RouteDeps): Router<GatewayState> {
  return new Router<GatewayState>();
}
