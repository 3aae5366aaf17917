/** The scopes of the public API (spec, "Authentication"): one list for the gateway and auth. */
export const SCOPES = [
  "movespecs:read",
  "movespecs:write",
  "sessions:read",
  "sessions:write",
  "tokens:read",
  "tokens:write",
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: unknown): value is Scope {
  return typeof value === "string" && (SCOPES as readonly string[]).includes(value);
}

/** Scope names that are not scopes, in the order given (for a 400's details). */
export function unknownScopes(values: readonly string[]): string[] {
  return values.filter((value) => !isScope(value));
}
