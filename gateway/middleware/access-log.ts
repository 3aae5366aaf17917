import type { Logger } from "@movement-detection/shared/logging";
import { redactedQuery } from "@movement-detection/shared/logging";
import { currentTraceId } from "@movement-detection/shared/telemetry";
import type { Middleware } from "koa";
import type { Counter, Histogram } from "prom-client";
import type { GatewayState } from "../state.js";

export interface HttpMetrics {
  readonly requests: Counter<"method" | "route" | "status">;
  readonly seconds: Histogram<"method" | "route">;
}

/**
 * One metric sample per request, labelled by route template (never the raw path), and one access
 * log line at info once the response is sent (or the client went away): method, route, path,
 * status, duration, bytes both ways, request id and trace id. Headers and bodies are never logged,
 * and the values of secret query parameters (tokens, keys) are replaced.
 */
export function accessLog(logger: Logger, metrics: HttpMetrics): Middleware<GatewayState> {
  return async (ctx, next) => {
    const started = performance.now();
    const traceId = currentTraceId();
    let logged = false;
    const log = () => {
      if (logged) return;
      logged = true;
      const route = matchedRoute(ctx);
      const line = {
        method: ctx.method,
        route,
        path: pathOf(ctx),
        query: redactedQuery(ctx.originalUrl),
        status: ctx.status,
        ms: round(performance.now() - started),
        bytes_in: Number(ctx.get("content-length")) || 0,
        bytes_out: Number(ctx.res.getHeader("content-length")) || 0,
        aborted: ctx.res.writableFinished ? undefined : true,
        request_id: ctx.state.requestId,
        trace_id: traceId,
      };
      if (ctx.status >= 500) logger.warn(line, "request");
      else logger.info(line, "request");
    };
    // `finish`: the response went out whole; `close` alone: the client left before.
    ctx.res.once("finish", log);
    ctx.res.once("close", log);
    try {
      await next();
    } finally {
      const route = matchedRoute(ctx);
      metrics.requests.inc({ method: ctx.method, route, status: String(ctx.status) });
      metrics.seconds.observe({ method: ctx.method, route }, (performance.now() - started) / 1000);
    }
  };
}

/**
 * The path, or for a request target no URL can be made of (refused as MALFORMED_REQUEST), the
 * target up to its query: this runs in a response event, where a throw would end the process.
 */
function pathOf(ctx: { readonly path: string; readonly req: { url?: string } }): string {
  try {
    return ctx.path;
  } catch {
    return (ctx.req.url ?? "").split("?")[0].slice(0, 2048);
  }
}

function matchedRoute(ctx: object): string {
  const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  return typeof route === "string" ? route : "unmatched";
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
