import Router from "@koa/router";
import type { GatewayState } from "../state.js";

/**
 * A router of public routes. Paths match as written, case and trailing slash included: the API's
 * paths are lowercase without a trailing slash, and the route policies (gateway/auth/scopes.ts)
 * are matched as written. @koa/router's defaults would serve /API/HEALTH while the policies did
 * not know it (it asked for a token), and /api/movespecs/ but not /api/movespecs/{id}/.
 */
export function createRouter(): Router<GatewayState> {
  return new Router<GatewayState>({ sensitive: true, strict: true });
}
