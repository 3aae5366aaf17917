import { GatewayReason } from "@movement-detection/shared/errors";
import type { Middleware } from "koa";
import { ApiError } from "../errors/api-error.js";
import type { GatewayState } from "../state.js";

/**
 * What Node's HTTP parser lets through but no URL can be made of, refused as MALFORMED_REQUEST
 * before anything reads it (Koa's `ctx.path` throws on it, and a route would answer 500):
 *
 * - a request target that does not parse (the absolute form `http://[::1/x`);
 * - a Host (or, behind a trusted proxy, X-Forwarded-Host) that is not a host and a port
 *   (`a b`, `h:99999`): RFC 9112 §3.2 asks for a 400, and the stream URL a session's creation
 *   answers with is built from it. An absent Host (HTTP/1.0) is left alone.
 */
export function requestTarget(): Middleware<GatewayState> {
  return async (ctx, next) => {
    if (!targetParses(ctx)) {
      throw new ApiError(
        "invalid_argument",
        GatewayReason.malformedRequest,
        "the request target is not a valid URL",
      );
    }
    if (ctx.host !== "" && !isAuthority(ctx.host)) {
      throw new ApiError(
        "invalid_argument",
        GatewayReason.malformedRequest,
        "the Host header is not a host and port",
      );
    }
    await next();
  };
}

function targetParses(ctx: { readonly path: string }): boolean {
  try {
    void ctx.path;
    return true;
  } catch {
    return false;
  }
}

/** A host (an IP literal in brackets, or reg-name and IPv4 characters) and an optional port. */
const AUTHORITY = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(:\d{1,5})?$/;

/** True for a Host value a URL can be made of (`%00` and ports past 65535 are not). */
export function isAuthority(value: string): boolean {
  return AUTHORITY.test(value) && URL.canParse(`http://${value}`);
}
