import type { Middleware } from "koa";
import type { Counter, Histogram } from "prom-client";
import type { Logger } from "../../services/shared/logging/logger.js";
import type { GatewayState } from "../state.js";

export interface HttpMetrics {
  readonly requests: Counter<"method" | "route" | "status">;
  readonly seconds: Histogram<"method" | "route">;
}

/** One log line and one metric sample per request, labelled by route template, never raw path. */
export function accessLog(logger: Logger, metrics: HttpMetrics): Middleware<GatewayState> {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const ms = performance.now() - started;
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? "unmatched";
      metrics.requests.inc({ method: ctx.method, route, status: String(ctx.status) });
      metrics.seconds.observe({ method: ctx.method, route }, ms / 1000);
      const line = { method: ctx.method, route, status: ctx.status, ms: Math.round(ms * 10) / 10 };
      if (ctx.status >= 500) logger.warn(line, "request");
      else logger.debug(line, "request");
    }
  };
}
