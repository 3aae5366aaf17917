import { createHmac, randomBytes } from "node:crypto";

/** Recognisable prefixes, so that secret scanners find leaked credentials. */
export const API_KEY_PREFIX = "msk_";
export const SERVICE_ACCOUNT_PREFIX = "mss_";

const SECRET_BYTES = 32;

/** A new credential secret: the prefix and 256 random bits, base64url. */
export function generateSecret(prefix: string): string {
  return prefix + randomBytes(SECRET_BYTES).toString("base64url");
}

/** What is stored and shown about a secret: enough to recognise it, useless to an attacker. */
export function secretHint(secret: string): string {
  return secret.slice(0, 8);
}

/**
 * HMAC-SHA-256 keyed with a server-side pepper. The secrets are 256-bit random values, so a slow
 * password hash adds nothing (there is no dictionary to slow down) and a deterministic hash lets
 * `api_key` alone be found by an index lookup; the pepper makes a stolen database useless without
 * the service's configuration. See docs/auth.md.
 */
export function hashSecret(pepper: string, secret: string): string {
  return createHmac("sha256", pepper).update(secret, "utf8").digest("hex");
}
