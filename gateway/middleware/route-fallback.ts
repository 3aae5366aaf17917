import type Router from "@koa/router";
import { GatewayReason } from "@movement-detection/shared/errors";
import type { Middleware } from "koa";
import { ApiError } from "../errors/api-error.js";
import type { GatewayState } from "../state.js";

/**
 * Runs before the body is read: a path no route knows is 404 ROUTE_NOT_FOUND, a known path with
 * another method is 405 with `Allow` listing what the path accepts, and OPTIONS lists them. A
 * known route is named on the context at once (as the router would name it later), so that a
 * request refused before it reaches the router (bad JSON, no token) is logged and counted under
 * its route, not as unmatched.
 */
export function routeFallback(router: Router<GatewayState>): Middleware<GatewayState> {
  return async (ctx, next) => {
    const match = router.match(ctx.path, ctx.method);
    if (match.route) {
      const layer = match.pathAndMethod.at(-1);
      if (layer) (ctx as { _matchedRoute?: string | RegExp })._matchedRoute = layer.path;
      return next();
    }
    const allowed = allowedMethods(router, ctx.path);
    if (allowed.length === 0) {
      throw new ApiError(
        "not_found",
        GatewayReason.routeNotFound,
        `no route for ${ctx.method} ${ctx.path}`,
      );
    }
    const allow = allowed.join(", ");
    if (ctx.method === "OPTIONS") {
      ctx.set("Allow", allow);
      ctx.status = 204;
      return;
    }
    throw new ApiError(
      "method_not_allowed",
      GatewayReason.methodNotAllowed,
      `${ctx.method} is not allowed on ${ctx.path}`,
      { allowed },
      { allow },
    );
  };
}

function allowedMethods(router: Router<GatewayState>, path: string): string[] {
  const methods = new Set<string>();
  for (const layer of router.match(path, "GET").path) {
    for (const method of layer.methods) methods.add(method);
  }
  if (methods.size > 0) methods.add("OPTIONS");
  return [...methods];
}
