import type { Logger } from "@movement-detection/shared/logging";
import { currentTraceId } from "@movement-detection/shared/telemetry";
import type { Middleware } from "koa";
import { ApiError } from "../errors/api-error.js";
import type { GatewayState } from "../state.js";

/**
 * The one funnel from failures to the contract's envelope: routes throw `ApiError`s or let a
 * service client's `ConnectError` through, and this turns either into the body and status. Any
 * other error is a bug: answered as a bare `internal` error (nothing internal reaches the client)
 * and logged with its cause, as is every 500. `details` carries the request id and, when the
 * request is traced (or the caller sent a `traceparent`), the trace id.
 */
export function errorEnvelope(logger: Logger): Middleware<GatewayState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (caught) {
      const error = ApiError.from(caught);
      if (error.status === 500) {
        logger.error(
          { err: error.cause ?? caught, request_id: ctx.state.requestId },
          "internal error",
        );
      } else if (error.status >= 500) {
        logger.warn(
          { err: describe(error.cause), reason: error.reason, request_id: ctx.state.requestId },
          "dependency failed",
        );
      }
      ctx.status = error.status;
      for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
      ctx.body = error.envelope(ctx.state.requestId, currentTraceId());
    }
  };
}

function describe(cause: unknown): string | undefined {
  return cause instanceof Error ? cause.message : undefined;
}
