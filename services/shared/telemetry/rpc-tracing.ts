import { Code, ConnectError, type Interceptor, type StreamResponse } from "@connectrpc/connect";
import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import {
  ATTR_ERROR_TYPE,
  ATTR_RPC_METHOD,
  ATTR_RPC_SYSTEM_NAME,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from "@opentelemetry/semantic-conventions";
import { fetchHeadersGetter, fetchHeadersSetter } from "./trace-context.js";

/**
 * Spans for every gRPC call, both ends, as Connect interceptors: connect-node serves and calls
 * over node:http2, which OpenTelemetry's HTTP instrumentation does not see, and its gRPC
 * instrumentation only knows @grpc/grpc-js. The client end injects the W3C context into the
 * call's metadata; the server end extracts it, so one trace runs gateway -> service -> service.
 *
 * grpc.health.v1 is left out: probes every few seconds, and Watch streams that last for days,
 * would drown the traces that matter.
 */
const TRACER = "movement-detection/rpc";
const HEALTH_SERVICE = "grpc.health.v1.Health";
/** A server span is an error for these codes only (the others are the caller's doing). */
const SERVER_ERROR_CODES = new Set([
  Code.Unknown,
  Code.DeadlineExceeded,
  Code.Unimplemented,
  Code.Internal,
  Code.Unavailable,
  Code.DataLoss,
]);

export function serverTracingInterceptor(): Interceptor {
  return (next) => async (request) => {
    if (request.service.typeName === HEALTH_SERVICE) return next(request);
    const parent = propagation.extract(ROOT_CONTEXT, request.header, fetchHeadersGetter);
    const span = trace
      .getTracer(TRACER)
      .startSpan(
        rpcName(request.service.typeName, request.method.name),
        { kind: SpanKind.SERVER },
        parent,
      );
    if (span.isRecording()) {
      span.setAttributes({
        [ATTR_RPC_SYSTEM_NAME]: "grpc",
        [ATTR_RPC_METHOD]: rpcName(request.service.typeName, request.method.name),
      });
    }
    return traced(span, trace.setSpan(parent, span), () => next(request), SERVER_ERROR_CODES);
  };
}

export function clientTracingInterceptor(): Interceptor {
  return (next) => async (request) => {
    if (request.service.typeName === HEALTH_SERVICE) return next(request);
    const parent = context.active();
    const name = rpcName(request.service.typeName, request.method.name);
    const span = trace.getTracer(TRACER).startSpan(name, { kind: SpanKind.CLIENT }, parent);
    if (span.isRecording()) {
      const url = new URL(request.url);
      span.setAttributes({
        [ATTR_RPC_SYSTEM_NAME]: "grpc",
        [ATTR_RPC_METHOD]: name,
        [ATTR_SERVER_ADDRESS]: url.hostname,
        [ATTR_SERVER_PORT]: Number(url.port) || (url.protocol === "https:" ? 443 : 80),
      });
    }
    const ctx = trace.setSpan(parent, span);
    propagation.inject(ctx, request.header, fetchHeadersSetter);
    return traced(span, ctx, () => next(request), undefined);
  };
}

function rpcName(service: string, method: string): string {
  return `${service}/${method}`;
}

/**
 * Runs the call inside the span's context and ends the span with the call's gRPC status (a
 * streamed response: when its last message was read). `errorCodes` undefined: any failure.
 */
async function traced<R extends { stream: boolean }>(
  span: Span,
  ctx: Context,
  call: () => Promise<R>,
  errorCodes: ReadonlySet<Code> | undefined,
): Promise<R> {
  const finish = (error: unknown) => {
    if (span.isRecording()) {
      const failure = error === undefined ? undefined : ConnectError.from(error);
      span.setAttribute("rpc.grpc.status_code", failure?.code ?? 0);
      if (failure && (!errorCodes || errorCodes.has(failure.code))) {
        span.setAttribute(ATTR_ERROR_TYPE, Code[failure.code]);
        span.setStatus({ code: SpanStatusCode.ERROR, message: failure.rawMessage });
      }
    }
    span.end();
  };
  let response: R;
  try {
    response = await context.with(ctx, call);
  } catch (error) {
    finish(error);
    throw error;
  }
  if (!response.stream) {
    finish(undefined);
    return response;
  }
  const streamed = response as unknown as StreamResponse;
  return {
    ...streamed,
    message: endWithStream(streamed.message, finish),
  } as unknown as R;
}

async function* endWithStream<T>(
  messages: AsyncIterable<T>,
  finish: (error: unknown) => void,
): AsyncIterable<T> {
  let failure: unknown;
  try {
    yield* messages;
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    finish(failure);
  }
}
