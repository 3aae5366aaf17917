import Router from "@koa/router";
import type { GatewayState } from "../state.js";
import type { RouteDeps } from "./route-deps.js";

/** the detection session routes (issue 7). */
export function sessionRoutes(_deps: RouteDeps): Router<GatewayState> {
  return new Router<GatewayState>();
}
