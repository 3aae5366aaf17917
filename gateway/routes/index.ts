import type Router from "@koa/router";
import { apiDocsRoutes } from "../api-docs/routes.js";
import type { GatewayState } from "../state.js";
import { studioRoutes } from "../studio/routes.js";
import { authRoutes } from "./auth.js";
import { healthRoutes } from "./health.js";
import { movespecRoutes } from "./movespecs.js";
import { projectRoutes } from "./projects.js";
import type { RouteDeps } from "./route-deps.js";
import { createRouter } from "./router.js";
import { sessionRoutes } from "./sessions.js";

/** Every public route, one module per area of the spec, the API's own documentation and, unless disabled, MoveSpec Studio. */
export function publicRoutes(deps: RouteDeps): Router<GatewayState> {
  const router = createRouter();
  const areas = [
    healthRoutes(deps.config.environment),
    authRoutes(deps),
    projectRoutes(deps),
    movespecRoutes(deps),
    sessionRoutes(deps),
    apiDocsRoutes(),
    ...(deps.config.studioEnabled ? [studioRoutes()] : []),
  ];
  for (const area of areas) router.use(area.routes());
  return router;
}
