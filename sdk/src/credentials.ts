import type { AccessTokenRequest } from "./generated/api.js";

/**
 * How the client authenticates. A machine credential is exchanged for short-lived access tokens
 * (POST /api/auth/access-tokens), refreshed before they expire:
 * - `{ apiKey }`: the API key's secret (`msk_...`), the preferred form;
 * - `{ keyId, keySecret }`, or the combined string `"key_id:key_secret"`: the legacy pair;
 * - `{ serviceAccountId, serviceAccountSecret }`: a service account.
 * In a browser, never hold a machine credential: give the client `{ accessToken }` (a token, or
 * a function that fetches one from your backend; it is called again when a token expires).
 */
export type Credentials =
  | MachineCredential
  | { readonly accessToken: string | (() => string | Promise<string>) };

export type MachineCredential = (
  | { readonly apiKey: string }
  | { readonly keyId: string; readonly keySecret: string }
  | { readonly serviceAccountId: string; readonly serviceAccountSecret: string }
) & {
  /** The credential's project (checked by the server); inferred when omitted. */
  readonly projectId?: string;
  /** Restrict the tokens to these scopes (default: every scope of the credential). */
  readonly scopes?: readonly string[];
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A credential given as one string: `"key_id:key_secret"` (the id is a UUID) is the legacy pair,
 * anything else is an API key's secret.
 */
export function parseCredential(text: string): MachineCredential {
  const colon = text.indexOf(":");
  if (colon > 0 && UUID.test(text.slice(0, colon))) {
    return { keyId: text.slice(0, colon).toLowerCase(), keySecret: text.slice(colon + 1) };
  }
  return { apiKey: text };
}

/** The token request body for a machine credential. */
export function tokenRequest(credential: MachineCredential): AccessTokenRequest {
  const body: AccessTokenRequest =
    "apiKey" in credential
      ? { api_key: credential.apiKey }
      : "keyId" in credential
        ? { api_key_id: credential.keyId, api_key_secret: credential.keySecret }
        : {
            service_account_id: credential.serviceAccountId,
            service_account_secret: credential.serviceAccountSecret,
          };
  if (credential.projectId) body.project_id = credential.projectId;
  if (credential.scopes) body.scopes = [...credential.scopes];
  return body;
}
