import { type CallOptions, Code } from "@connectrpc/connect";
import { errorInfo } from "@movement-detection/shared/errors";
import { asUser, optionalPrincipal, requireScope } from "../../auth/principal.js";
import type { GatewayContext } from "../../state.js";

/**
 * Runs a read that is anonymous for public MoveSpecs and needs `movespecs:read` otherwise.
 * `call` makes the internal call with the options it is given (the user's token, or none).
 * A token without that scope reads as anonymous (it is not forwarded); only if that fails with
 * NOT_FOUND and the MoveSpec turns out to be the token's own is the answer 403 SCOPE_MISSING (a
 * MoveSpec of another project stays 404: nothing reveals it exists). It is the token's own when
 * the same read with the token succeeds, or fails on what the MoveSpec holds (no released
 * version). Service errors go on to the error middleware.
 */
export async function readWithOptionalScope<T>(
  ctx: GatewayContext,
  call: (user: CallOptions) => Promise<T>,
): Promise<T> {
  const principal = optionalPrincipal(ctx);
  if (!principal || principal.scopes.has("movespecs:read")) return call(asUser(principal));
  try {
    return await call(asUser(undefined));
  } catch (error) {
    if (errorInfo(error).code !== Code.NotFound) throw error;
    try {
      await call(asUser(principal));
    } catch (asOwner) {
      if (!foundTheMoveSpec(asOwner)) throw error;
    }
    requireScope(ctx, "movespecs:read");
    throw error;
  }
}

/**
 * Whether a read that failed with `error` had found its MoveSpec: it failed on something inside
 * it (no released version yet). Not found (an unknown version says nothing either: the service
 * answers the same for a version it hides), refused, or not answered: false.
 */
function foundTheMoveSpec(error: unknown): boolean {
  return errorInfo(error).code === Code.FailedPrecondition;
}
