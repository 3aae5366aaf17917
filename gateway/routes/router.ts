import Router from "@koa/router";
import type { GatewayState } from "../state.js";

/**
 * A router of public routes. Paths match case-sensitively: the API's paths are lowercase, and the
 * route policies (gateway/auth/scopes.ts) are matched as written. @koa/router's default would
 * serve /API/HEALTH while the policies did not know it (it asked for a token).
 */
export function createRouter(): Router<GatewayState> {
  return new Router<GatewayState>({ sensitive: true });
}
