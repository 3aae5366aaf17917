import type { Middleware } from "koa";
import type { Logger } from "../../services/shared/logging/logger.js";
import { ApiError } from "../errors/api-error.js";
import type { GatewayState } from "../state.js";

/**
 * Turns every failure below into the contract's envelope. Unknown errors are logged with their
 * stack and answered as a bare `internal` error: nothing internal ever reaches the client.
 */
export function errorEnvelope(logger: Logger): Middleware<GatewayState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (caught) {
      let error: ApiError;
      if (caught instanceof ApiError) {
        error = caught;
      } else {
        logger.error({ err: caught }, "unhandled error");
        error = new ApiError("internal", "INTERNAL", "internal error");
      }
      ctx.status = error.status;
      for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
      ctx.body = {
        error: {
          code: error.code,
          message: error.message,
          retryable: error.retryable,
          details: { ...error.details, reason: error.reason, request_id: ctx.state.requestId },
        },
      };
    }
  };
}
