import Router from "@koa/router";
import type { GatewayState } from "../state.js";
import { healthRoutes } from "./health.js";
import type { RouteDeps } from "./route-deps.js";

/** Every public route, one module per area of the spec. */
export function publicRoutes(deps: RouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();
  for (const area of [healthRoutes(deps.config.environment)]) {
    router.use(area.routes());
  }
  return router;
}
