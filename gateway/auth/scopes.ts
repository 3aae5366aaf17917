/** The scopes of the public API (spec, "Authentication"). */
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
