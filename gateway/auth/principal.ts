import type { CallOptions } from "@connectrpc/connect";
import { GatewayReason, Reason } from "@movement-detection/shared/errors";
import { onBehalfOf } from "@movement-detection/shared/security";
import type { AccessClaims } from "@movement-detection/shared/tokens";
import { ApiError } from "../errors/api-error.js";
import type { GatewayContext } from "../state.js";
import type { Scope } from "./scopes.js";

/** Who a verified access token speaks for. */
export interface Principal {
  readonly organizationId: string;
  readonly projectId: string;
  readonly scopes: ReadonlySet<Scope>;
  readonly credentialId: string;
  readonly tokenId: string;
  /** The verified token itself: internal calls made for this principal forward it. */
  readonly accessToken: string;
}

export function principalOf(claims: AccessClaims, accessToken: string): Principal {
  return {
    organizationId: claims.organizationId,
    projectId: claims.projectId,
    scopes: new Set(claims.scopes),
    credentialId: claims.credentialId,
    tokenId: claims.tokenId,
    accessToken,
  };
}

/** The principal of this request, if it carried a valid access token (set by `authenticate`). */
export function optionalPrincipal(ctx: GatewayContext): Principal | undefined {
  return ctx.state.principal as Principal | undefined;
}

/** The principal, which must exist: else 401 TOKEN_MISSING. */
export function requirePrincipal(ctx: GatewayContext): Principal {
  const principal = optionalPrincipal(ctx);
  if (!principal) {
    throw new ApiError(
      "unauthenticated",
      Reason.tokenMissing,
      "this route needs a bearer access token",
      {},
      { "www-authenticate": "Bearer" },
    );
  }
  return principal;
}

/** The principal, which must exist and hold `scope`: else 401 TOKEN_MISSING or 403 SCOPE_MISSING. */
export function requireScope(ctx: GatewayContext, scope: Scope): Principal {
  const principal = requirePrincipal(ctx);
  if (!principal.scopes.has(scope)) {
    throw new ApiError(
      "permission_denied",
      GatewayReason.scopeMissing,
      `the token lacks the ${scope} scope`,
      {
        required_scope: scope,
      },
    );
  }
  return principal;
}

/**
 * Call options of an internal call made for `principal`: its access token in `authorization`, so
 * that the service verifies the user itself (docs/security.md). Anonymous without a principal.
 */
export function asUser(principal: Principal | undefined): CallOptions {
  return onBehalfOf(principal);
}
