/**
 * The gateway's anonymous pages, in one place: the routes that serve them (api-docs/routes.ts,
 * studio/routes.ts) check their paths against these at start, and auth/scopes.ts lets them
 * through without looking at the Authorization header. Neither side imports the other.
 */
import type Router from "@koa/router";

/** The documentation's paths (anonymous; the Authorization header is ignored there). */
export const DOCS_PATHS = /^\/(?:openapi\.json|asyncapi\.json|docs(?:\/.*)?)$/;
/** MoveSpec Studio's paths (anonymous files: the page signs in itself, with the public API). */
export const STUDIO_PATHS = /^\/studio(?:\/.*)?$/;

/**
 * Throws when a router serves a path outside its anonymous pattern: the route would demand a
 * token its page never sends (or, the other way round, the pattern would open a path no page needs).
 */
export function assertRoutesWithin(router: Router, pattern: RegExp): void {
  for (const layer of router.stack) {
    const path = String(layer.path);
    if (!pattern.test(path))
      throw new Error(`route ${path} is outside its public paths ${pattern}`);
  }
}
