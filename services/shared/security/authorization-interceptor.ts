import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { GatewayReason, InternalCallReason, Reason } from "../errors/reasons.js";
import { errorInfo, serviceError } from "../errors/service-error.js";
import type { Logger } from "../logging/logger.js";
import { KeySetUnavailableError, TokenError, type TokenVerifier } from "../tokens/index.js";
import { type MethodRule, ruleFor } from "./access-policy.js";
import { bearerToken } from "./bearer-token.js";
import {
  ANONYMOUS,
  CALLER_KEY,
  type Caller,
  PEER_WORKLOAD_KEY,
  USER_TOKEN_HEADER,
} from "./caller.js";

/**
 * The one server interceptor that decides whether an internal call may run, for every method of
 * every service, from the access table (access-policy.ts):
 * 1. the peer's workload (its certificate's SPIFFE ID, set by the server before interceptors
 *    run): none -> UNAUTHENTICATED WORKLOAD_UNAUTHENTICATED;
 * 2. the method's row names that workload: else PERMISSION_DENIED WORKLOAD_NOT_ALLOWED (a method
 *    without a row is denied to everyone);
 * 3. the end user: the forwarded access token, verified here with the service's own verifier
 *    (signature, issuer, audience, type, expiry), as the row requires; the caller handlers see
 *    (`callerOf(context)`) is derived from that token only.
 * Refusals are logged at warn with the peer and the method, never the token.
 */
export function authorizationInterceptor(options: {
  logger: Logger;
  /** The service's access-token verifier; undefined until the service started (or none needed). */
  userTokens: () => TokenVerifier | undefined;
}): Interceptor {
  return (next) => async (request) => {
    const rpc = `${request.service.typeName}/${request.method.name}`;
    const peer = request.contextValues.get(PEER_WORKLOAD_KEY);
    /** Logs a refusal (the peer and the method, never a token) and gives the error to throw. */
    const refused = (error: ConnectError): ConnectError => {
      options.logger.warn(
        {
          rpc,
          peer_workload: peer ?? null,
          code: Code[error.code],
          reason: errorInfo(error).reason,
        },
        "internal call refused",
      );
      return error;
    };
    if (!peer) {
      throw refused(
        serviceError(
          Code.Unauthenticated,
          InternalCallReason.workloadUnauthenticated,
          "internal calls need a workload certificate of this system's CA",
        ),
      );
    }
    const rule = ruleFor(request.service.typeName, request.method.name);
    if (!rule?.callers.includes(peer)) {
      throw refused(
        serviceError(
          Code.PermissionDenied,
          InternalCallReason.workloadNotAllowed,
          `${peer} may not call ${rpc}`,
          { workload: peer },
        ),
      );
    }
    let caller: Caller;
    try {
      caller = await userOf(request.header.get(USER_TOKEN_HEADER), rule, options.userTokens());
    } catch (error) {
      throw refused(ConnectError.from(error));
    }
    request.contextValues.set(CALLER_KEY, caller);
    return next(request);
  };
}

async function userOf(
  header: string | null,
  rule: MethodRule,
  verifier: TokenVerifier | undefined,
): Promise<Caller> {
  if (rule.user === "none") {
    if (header !== null) {
      throw serviceError(
        Code.InvalidArgument,
        InternalCallReason.userTokenNotAccepted,
        "this method acts for no user: send no authorization header",
      );
    }
    return ANONYMOUS;
  }
  if (header === null) {
    if (rule.user === "optional") return ANONYMOUS;
    throw serviceError(
      Code.Unauthenticated,
      Reason.tokenMissing,
      "this method needs the user's access token",
    );
  }
  const token = bearerToken(header);
  if (!token) {
    throw serviceError(
      Code.Unauthenticated,
      Reason.tokenInvalid,
      "authorization is not a bearer token",
    );
  }
  if (!verifier) {
    throw serviceError(Code.Unavailable, Reason.notReady, "user tokens cannot be verified yet");
  }
  let claims: Awaited<ReturnType<TokenVerifier["verifyAccessToken"]>>;
  try {
    claims = await verifier.verifyAccessToken(token);
  } catch (error) {
    if (error instanceof TokenError) {
      throw serviceError(
        Code.Unauthenticated,
        error.reason,
        "the user's access token is not valid",
      );
    }
    if (error instanceof KeySetUnavailableError) {
      throw serviceError(
        Code.Unavailable,
        Reason.dependencyUnavailable,
        "user tokens cannot be verified right now",
      );
    }
    throw error;
  }
  if (typeof rule.user === "object" && !claims.scopes.includes(rule.user.scope)) {
    throw serviceError(
      Code.PermissionDenied,
      GatewayReason.scopeMissing,
      `the user's token lacks the ${rule.user.scope} scope`,
      { required_scope: rule.user.scope },
    );
  }
  return {
    organizationId: claims.organizationId,
    projectId: claims.projectId,
    scopes: claims.scopes,
    credentialId: claims.credentialId,
    accessToken: token,
  };
}
