import { SCOPES, unknownScopes } from "@movement-detection/shared/tokens";

export type ScopeDecision =
  | { readonly ok: true; readonly scopes: string[] }
  | { readonly ok: false; readonly problem: "unknown"; readonly scopes: string[] }
  | { readonly ok: false; readonly problem: "empty" }
  | { readonly ok: false; readonly problem: "not_granted"; readonly scopes: string[] };

/**
 * The scopes a token gets: the credential's when none were requested, else the requested ones,
 * which must be known scope names and a subset of the credential's. An empty request is refused
 * rather than read as "everything" (a client that filtered its list down to nothing must not get
 * a full-scope token). Scopes are returned in the canonical order, without duplicates.
 */
export function grantScopes(
  credentialScopes: readonly string[],
  requested: readonly string[] | undefined,
): ScopeDecision {
  if (requested === undefined) return { ok: true, scopes: canonical(credentialScopes) };
  const unknown = unknownScopes(requested);
  if (unknown.length > 0) return { ok: false, problem: "unknown", scopes: unknown };
  if (requested.length === 0) return { ok: false, problem: "empty" };
  const notGranted = requested.filter((scope) => !credentialScopes.includes(scope));
  if (notGranted.length > 0) {
    return { ok: false, problem: "not_granted", scopes: [...new Set(notGranted)] };
  }
  return { ok: true, scopes: canonical(requested) };
}

function canonical(scopes: readonly string[]): string[] {
  return SCOPES.filter((scope) => scopes.includes(scope));
}
