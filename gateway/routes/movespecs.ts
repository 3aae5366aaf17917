import Router from "@koa/router";
import type { GatewayState } from "../state.js";
import type { RouteDeps } from "./route-deps.js";

/** the eleven MoveSpec routes (issue 6). */
export function movespecRoutes(_deps: RouteDeps): Router<GatewayState> {
  return new Router<GatewayState>();
}
