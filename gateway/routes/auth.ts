import Router from "@koa/router";
import type { GatewayState } from "../state.js";
import type { RouteDeps } from "./route-deps.js";

/** POST /api/auth/access-tokens (issue 5). */
export function authRoutes(_deps: RouteDeps): Router<GatewayState> {
  return new Router<GatewayState>();
}
