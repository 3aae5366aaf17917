import Koa from "koa";
import { authenticate } from "./auth/authenticate.js";
import { accessLog, type HttpMetrics } from "./middleware/access-log.js";
import { corsPolicy } from "./middleware/cors.js";
import { errorEnvelope } from "./middleware/error-envelope.js";
import { jsonBody } from "./middleware/json-body.js";
import { requestId } from "./middleware/request-id.js";
import { requestTarget } from "./middleware/request-target.js";
import { routeFallback } from "./middleware/route-fallback.js";
import { httpTracing } from "./middleware/tracing.js";
import { publicRoutes } from "./routes/index.js";
import type { RouteDeps } from "./routes/route-deps.js";
import type { GatewayState } from "./state.js";

/** The public JSON API as a Koa app (it does not listen: see server.ts). */
export function createGatewayApp(deps: RouteDeps, metrics: HttpMetrics): Koa<GatewayState> {
  const app = new Koa<GatewayState>();
  app.proxy = deps.config.trustProxy;
  // Only the address the trusted ingress appended counts: a client can forge the others.
  app.maxIpsCount = 1;
  // Errors are answered by errorEnvelope; Koa's default handler would print them again.
  app.silent = true;
  const router = publicRoutes(deps);

  app.use(requestId());
  // Tracing off: not even a pass-through middleware (its cost was measured: README, "Tracing").
  if (deps.config.telemetry.mode !== "off") app.use(httpTracing());
  app
    .use(accessLog(deps.logger, metrics))
    .use(corsPolicy(deps.config.corsAllowedOrigins))
    .use(errorEnvelope(deps.logger))
    .use(requestTarget())
    .use(routeFallback(router))
    .use(jsonBody(deps.config.bodyLimitBytes, deps.config.bodyTimeoutMs))
    .use(authenticate(deps.tokenVerifier))
    .use(router.routes());
  return app;
}
