import { contextFromIncoming } from "@movement-detection/shared/telemetry";
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from "@opentelemetry/semantic-conventions";
import type { Middleware } from "koa";
import type { GatewayState } from "../state.js";

const TRACER = "movement-detection/gateway";
/** W3C Trace Context level 2: tells the caller which trace (and span) answered it. */
export const TRACE_RESPONSE_HEADER = "traceresponse";

/**
 * The server span of each public request, a child of the caller's `traceparent` when it sent a
 * valid one. Everything below runs in its context: the access log, the error envelope (which
 * quotes the trace id), and every gRPC call (which carries it on). Named by route template once
 * the router has matched, never by the raw path.
 */
export function httpTracing(): Middleware<GatewayState> {
  return (ctx, next) => {
    const parent = contextFromIncoming(ctx.req.headers);
    const span = trace.getTracer(TRACER).startSpan(ctx.method, { kind: SpanKind.SERVER }, parent);
    const own = span.spanContext();
    // Only a span of our own is worth naming (without a tracer, the caller's context passes through).
    if (trace.isSpanContextValid(own) && own.spanId !== trace.getSpanContext(parent)?.spanId) {
      const flags = own.traceFlags.toString(16).padStart(2, "0");
      ctx.set(TRACE_RESPONSE_HEADER, `00-${own.traceId}-${own.spanId}-${flags}`);
    }
    return context.with(trace.setSpan(parent, span), async () => {
      try {
        await next();
      } finally {
        if (span.isRecording()) {
          const route = (ctx as { _matchedRoute?: string })._matchedRoute;
          if (route) span.updateName(`${ctx.method} ${route}`);
          span.setAttributes({
            [ATTR_HTTP_REQUEST_METHOD]: ctx.method,
            [ATTR_URL_PATH]: ctx.path,
            [ATTR_URL_SCHEME]: ctx.protocol,
            [ATTR_CLIENT_ADDRESS]: ctx.ip,
            [ATTR_HTTP_RESPONSE_STATUS_CODE]: ctx.status,
            ...(route ? { [ATTR_HTTP_ROUTE]: route } : {}),
            ...(ctx.get("user-agent") ? { [ATTR_USER_AGENT_ORIGINAL]: ctx.get("user-agent") } : {}),
          });
          if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      }
    });
  };
}
