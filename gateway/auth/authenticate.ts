import { type ErrorReason, Reason } from "@movement-detection/shared/errors";
import { bearerToken } from "@movement-detection/shared/security";
import {
  KeySetUnavailableError,
  TokenError,
  type TokenVerifier,
} from "@movement-detection/shared/tokens";
import type { Middleware } from "koa";
import { ApiError } from "../errors/api-error.js";
import type { GatewayContext, GatewayState } from "../state.js";
import { principalOf, requirePrincipal, requireScope } from "./principal.js";
import { ignoresAuthorization, policyFor } from "./scopes.js";

/**
 * Reads `Authorization: Bearer <access token>` and verifies it locally (public keys from the auth
 * service, cached): a header that does not verify is 401 at once (TOKEN_INVALID, TOKEN_EXPIRED),
 * a valid one sets `ctx.state.principal`. Then the route's policy (scopes.ts) is enforced for every
 * route, so no route can forget it: 401 TOKEN_MISSING without a token where one is needed, 403
 * SCOPE_MISSING without the route's scope. Routes readable anonymously when public decide
 * themselves with `requireScope` / `optionalPrincipal`.
 */
export function authenticate(verifier: TokenVerifier): Middleware<GatewayState> {
  return async (ctx, next) => {
    if (ignoresAuthorization(ctx.method, ctx.path)) return next();
    const header = ctx.get("authorization");
    if (header !== "") await verify(ctx, verifier, header);
    const policy = policyFor(ctx.method, ctx.path);
    if (policy.kind === "token") requirePrincipal(ctx);
    if (policy.kind === "scope" && !policy.anonymous) requireScope(ctx, policy.scope);
    return next();
  };
}

async function verify(ctx: GatewayContext, verifier: TokenVerifier, header: string) {
  const token = bearerToken(header);
  if (!token)
    throw unauthenticated(Reason.tokenInvalid, "the Authorization header is not a bearer token");
  try {
    ctx.state.principal = principalOf(await verifier.verifyAccessToken(token), token);
  } catch (error) {
    if (error instanceof TokenError) {
      throw unauthenticated(
        error.reason,
        error.reason === Reason.tokenExpired
          ? "the access token has expired"
          : "the access token is not valid",
      );
    }
    if (error instanceof KeySetUnavailableError) {
      throw new ApiError(
        "unavailable",
        Reason.dependencyUnavailable,
        "tokens cannot be verified right now",
        {},
        { "retry-after": "1" },
      );
    }
    throw error;
  }
}

function unauthenticated(reason: ErrorReason, message: string): ApiError {
  return new ApiError(
    "unauthenticated",
    reason,
    message,
    {},
    {
      "www-authenticate": `Bearer error="invalid_token"`,
    },
  );
}
