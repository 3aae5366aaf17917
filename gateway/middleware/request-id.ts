import {
  acceptRequestId,
  REQUEST_ID_HEADER,
  runWithRequestContext,
} from "@movement-detection/shared/logging";
import type { Middleware } from "koa";
import type { GatewayState } from "../state.js";

/**
 * Keeps the caller's X-Request-Id when it is sane, else makes one; every response carries it and
 * everything downstream (logs, internal calls) runs inside its context.
 */
export function requestId(): Middleware<GatewayState> {
  return (ctx, next) => {
    const id = acceptRequestId(ctx.get(REQUEST_ID_HEADER));
    ctx.state.requestId = id;
    ctx.set("X-Request-Id", id);
    return runWithRequestContext({ requestId: id }, next);
  };
}
