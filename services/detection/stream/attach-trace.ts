import type { IncomingHttpHeaders } from "node:http";
import { contextFromIncoming } from "@movement-detection/shared/telemetry";
import { type Context, context, type Span, SpanKind, trace } from "@opentelemetry/api";

/**
 * The span of one stream attachment on this replica: from the upgrade the gateway forwarded
 * (whose `traceparent` makes it a child of the gateway's stream span) through `hello`, the token
 * check and the attach (lease, session, checkpoint: their store calls are its children), to
 * `ready` or a refusal. The frames that follow are not part of it: a stream may last hours.
 */
export interface AttachTrace {
  /** Runs `fn` (the hello and attach) inside the span's context. */
  run<T>(fn: () => T): T;
  /** Ends the span (once): attached, refused with a stream error code, or the client left. */
  end(outcome: "attached" | "refused" | "gone", errorCode?: string): void;
}

export const STREAM_ROUTE = "/api/detection/sessions/:session_id/stream";

export function startAttachTrace(headers: IncomingHttpHeaders): AttachTrace {
  const parent = contextFromIncoming(headers);
  const span: Span = trace
    .getTracer("movement-detection/detection")
    .startSpan(`WS ${STREAM_ROUTE}`, { kind: SpanKind.SERVER }, parent);
  const spanContext: Context = trace.setSpan(parent, span);
  let ended = false;
  return {
    run: (fn) => context.with(spanContext, fn),
    end(outcome, errorCode) {
      if (ended) return;
      ended = true;
      if (span.isRecording()) {
        span.setAttributes({
          "http.route": STREAM_ROUTE,
          "detection.attach.outcome": outcome,
          ...(errorCode ? { "detection.stream.error_code": errorCode } : {}),
        });
      }
      span.end();
    },
  };
}
