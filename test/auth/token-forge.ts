import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newId } from "@movement-detection/shared/ids";
import {
  ACCESS_TOKEN_AUDIENCE,
  ACCESS_TOKEN_TYPE,
  DEFAULT_TOKEN_ISSUER,
} from "@movement-detection/shared/tokens";
import {
  base64url,
  type CryptoKey,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  SignJWT,
} from "jose";

/** A signing key the test holds, in the JWK form SIGNING_KEYS_DIR expects. */
export interface TestKey {
  readonly kid: string;
  readonly jwk: JWK;
  readonly key: CryptoKey;
  readonly publicJwk: JWK;
}

export async function generateTestKey(kid = newId()): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair("EdDSA", {
    crv: "Ed25519",
    extractable: true,
  });
  const jwk = { ...(await exportJWK(privateKey)), kid, alg: "EdDSA" };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: "EdDSA", use: "sig" };
  return { kid, jwk, key: (await importJWK(jwk, "EdDSA")) as CryptoKey, publicJwk };
}

/** A directory of private JWK files, as production mounts it. */
export async function writeKeyDirectory(keys: readonly TestKey[]): Promise<{
  dir: string;
  remove: () => Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), "mds-keys-"));
  for (const key of keys) await writeFile(join(dir, `${key.kid}.json`), JSON.stringify(key.jwk));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface ForgeClaims {
  readonly projectId: string;
  readonly organizationId: string;
  readonly scopes?: readonly string[];
}

/**
 * An access token exactly like the auth service's, signed with `key`, with any part overridden:
 * `header` and `payload` entries replace the defaults (undefined removes one).
 */
export async function forgeAccessToken(
  key: TestKey,
  claims: ForgeClaims,
  overrides: { header?: Record<string, unknown>; payload?: Record<string, unknown> } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = {
    iss: DEFAULT_TOKEN_ISSUER,
    aud: ACCESS_TOKEN_AUDIENCE,
    sub: newId(),
    jti: newId(),
    iat: now,
    exp: now + 600,
    scope: (
      claims.scopes ?? ["movespecs:read", "movespecs:write", "sessions:read", "sessions:write"]
    ).join(" "),
    client_id: newId(),
    cred_type: "api_key",
    org_id: claims.organizationId,
    project_id: claims.projectId,
    ...overrides.payload,
  };
  const header: Record<string, unknown> = {
    alg: "EdDSA",
    kid: key.kid,
    typ: ACCESS_TOKEN_TYPE,
    ...overrides.header,
  };
  for (const [name, value] of Object.entries(payload))
    if (value === undefined) delete payload[name];
  return new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(key.key);
}

/** The same token with `alg: none` and no signature (RFC 7519 unsecured JWT). */
export function unsecured(token: string): string {
  const [, payload] = token.split(".");
  const header = base64url.encode(JSON.stringify({ alg: "none", typ: ACCESS_TOKEN_TYPE }));
  return `${header}.${payload}.`;
}

/** The same token with one signature byte flipped. */
export function tamperSignature(token: string): string {
  const [header, payload, signature] = token.split(".");
  const bytes = base64url.decode(signature);
  bytes[5] ^= 0x01;
  return `${header}.${payload}.${base64url.encode(bytes)}`;
}

/** The same token with a claim changed but the original signature (payload tampering). */
export function tamperPayload(token: string, change: Record<string, unknown>): string {
  const [header, payload, signature] = token.split(".");
  const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload)));
  const changed = base64url.encode(JSON.stringify({ ...claims, ...change }));
  return `${header}.${changed}.${signature}`;
}
