import type Router from "@koa/router";
import type { GatewayState } from "../state.js";
import { createRouter } from "./router.js";

/** GET /api/health and GET /healthz: anonymous, and only about the gateway itself. */
export function healthRoutes(environment: string): Router<GatewayState> {
  const router = createRouter();
  const health = { status: "ok", environment, role: "gateway" };
  router.get("/api/health", (ctx) => {
    ctx.body = health;
  });
  router.get("/healthz", (ctx) => {
    ctx.body = health;
  });
  return router;
}
