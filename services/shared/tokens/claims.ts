import type { Scope } from "./scopes.js";

/** JWT claim names beyond the registered ones (RFC 7519 / RFC 9068). */
export const CLAIM = {
  scope: "scope",
  clientId: "client_id",
  organizationId: "org_id",
  projectId: "project_id",
  credentialType: "cred_type",
} as const;

export type CredentialKind = "api_key" | "service_account";

/** What a verified access token says. */
export interface AccessClaims {
  /** `jti` */
  readonly tokenId: string;
  /** `sub`: the API key or service account that minted the token. */
  readonly credentialId: string;
  readonly credentialType: CredentialKind;
  readonly organizationId: string;
  readonly projectId: string;
  readonly scopes: readonly Scope[];
  /** `iat`, seconds since the epoch. */
  readonly iat: number;
  /** `exp`, seconds since the epoch. */
  readonly exp: number;
}

/** What a verified runtime token says: it attaches to one detection session's stream. */
export interface RuntimeClaims {
  readonly tokenId: string;
  /** `sub` */
  readonly sessionId: string;
  readonly organizationId: string;
  readonly projectId: string;
  readonly iat: number;
  readonly exp: number;
}
