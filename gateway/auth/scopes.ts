import { streamPathSession } from "@movement-detection/shared/realtime";
import type { Scope } from "@movement-detection/shared/tokens";
import { DOCS_PATHS, STUDIO_PATHS } from "../public-paths.js";

/** The scopes of the public API (spec, "Authentication"); one list shared with the auth service. */
export type { Scope };

/**
 * Who may call a route (contract, "Scope per endpoint"):
 * - `public`: no token needed and the Authorization header is ignored (health checks; the token
 *   exchange, whose credential is in the body: a client refreshing with a stale header must work);
 * - `token`: any valid access token (the route checks the project);
 * - a scope, with `anonymous: true` where public resources are readable without a token (the route
 *   decides, since only it knows whether the resource is public).
 */
export type RoutePolicy =
  | { readonly kind: "public" }
  | { readonly kind: "token" }
  | { readonly kind: "scope"; readonly scope: Scope; readonly anonymous: boolean };

interface PolicyRule {
  readonly method: string;
  readonly path: RegExp;
  readonly policy: RoutePolicy;
}

const ID = "[^/]+";
const rule = (method: string, path: string, policy: RoutePolicy): PolicyRule => ({
  method,
  path: new RegExp(`^${path.replaceAll("{id}", ID)}/?$`),
  policy,
});
const scope = (name: Scope, anonymous = false): RoutePolicy => ({
  kind: "scope",
  scope: name,
  anonymous,
});

export const ROUTE_POLICIES: readonly PolicyRule[] = [
  rule("GET", "/api/health", { kind: "public" }),
  rule("GET", "/healthz", { kind: "public" }),
  rule("POST", "/api/auth/access-tokens", { kind: "public" }),
  rule("GET", "/api/projects/{id}", { kind: "token" }),
  rule("GET", "/api/projects/{id}/movespecs", scope("movespecs:read")),
  rule("GET", "/api/movespecs", { kind: "public" }),
  rule("POST", "/api/movespecs", scope("movespecs:write")),
  rule("GET", "/api/movespecs/{id}", scope("movespecs:read", true)),
  rule("GET", "/api/movespecs/{id}/draft", scope("movespecs:read")),
  rule("PUT", "/api/movespecs/{id}/draft", scope("movespecs:write")),
  rule("POST", "/api/movespecs/{id}/draft/validate", scope("movespecs:write")),
  rule("GET", "/api/movespecs/{id}/versions", scope("movespecs:read", true)),
  rule("POST", "/api/movespecs/{id}/versions", scope("movespecs:write")),
  rule("GET", "/api/movespecs/{id}/versions/{id}", scope("movespecs:read", true)),
  rule("POST", "/api/movespecs/{id}/versions/{id}/release", scope("movespecs:write")),
  rule("GET", "/api/movespecs/{id}/released-source", scope("movespecs:read", true)),
  rule("POST", "/api/detection/sessions", scope("sessions:write")),
  rule("GET", "/api/detection/sessions/{id}", scope("sessions:read")),
  rule("POST", "/api/detection/sessions/{id}/finalize", scope("sessions:write")),
  rule("GET", "/api/detection/sessions/{id}/stream", { kind: "public" }),
];

/**
 * The policy of a request. Unlisted routes need a valid token (fail closed); GET /api/movespecs is
 * `public` because the listing only ever shows public entries, but a token sent to it is still
 * verified (see authenticate.ts) so that a stale token is reported rather than ignored.
 */
export function policyFor(method: string, path: string): RoutePolicy {
  const lookup = method === "HEAD" ? "GET" : method;
  for (const entry of ROUTE_POLICIES) {
    if (entry.method === lookup && entry.path.test(path)) return entry.policy;
  }
  return { kind: "token" };
}

/** Routes that never look at the Authorization header. */
export function ignoresAuthorization(method: string, path: string): boolean {
  const lookup = method === "HEAD" ? "GET" : method;
  return (
    (lookup === "GET" && (path === "/api/health" || path === "/healthz")) ||
    // The API's own documentation (gateway/api-docs): public, and not an API route.
    (lookup === "GET" && DOCS_PATHS.test(path)) ||
    // MoveSpec Studio's files (gateway/studio): the page signs in through the API itself.
    (lookup === "GET" && STUDIO_PATHS.test(path)) ||
    (lookup === "POST" && /^\/api\/auth\/access-tokens\/?$/.test(path)) ||
    // The realtime stream authenticates with its runtime token, never an access token.
    streamPathSession(path) !== undefined
  );
}
