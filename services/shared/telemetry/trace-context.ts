import type { IncomingHttpHeaders } from "node:http";
import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type TextMapGetter,
  type TextMapSetter,
  trace,
} from "@opentelemetry/api";

/** The trace id of the span being served, if any (a valid W3C context). */
export function currentTraceId(): string | undefined {
  const spanContext = trace.getSpanContext(context.active());
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}

/** What every log line carries about the trace it was written in (pino's mixin). */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getSpanContext(context.active());
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/** Fetch-style headers (Connect's request and response headers). */
export const fetchHeadersGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

export const fetchHeadersSetter: TextMapSetter<Headers> = {
  set: (headers, key, value) => headers.set(key, value),
};

/** Node's incoming HTTP headers (lower-case names; repeated ones as arrays). */
const incomingHeadersGetter: TextMapGetter<IncomingHttpHeaders> = {
  keys: (headers) => Object.keys(headers),
  get: (headers, key) => headers[key.toLowerCase()],
};

/** The caller's trace context from an HTTP request's headers (the root context if none). */
export function contextFromIncoming(headers: IncomingHttpHeaders): Context {
  return propagation.extract(ROOT_CONTEXT, headers, incomingHeadersGetter);
}

/** The W3C headers (`traceparent`, `tracestate`, `baggage`) that carry `ctx` to the next hop. */
export function outgoingTraceHeaders(ctx: Context): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier;
}
