import { newId } from "@movement-detection/shared/ids";
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from "@movement-detection/shared/tokens";
import { exportJWK, generateKeyPair, type JWK } from "jose";

/** The algorithm of keys this service generates: Ed25519 (fast, small, deterministic). */
const GENERATED_KEY_ALGORITHM: SigningAlgorithm = "EdDSA";

export interface PrivateSigningJwk extends JWK {
  kid: string;
  alg: SigningAlgorithm;
}

/** A new private JWK with a time-ordered `kid` (a UUIDv7). */
export async function generateSigningJwk(): Promise<PrivateSigningJwk> {
  const { privateKey } = await generateKeyPair(GENERATED_KEY_ALGORITHM, {
    crv: "Ed25519",
    extractable: true,
  });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: newId(), alg: GENERATED_KEY_ALGORITHM };
}

/** Checks a private JWK read from storage or a file; the error says what is wrong. */
export function parsePrivateJwk(value: unknown): PrivateSigningJwk {
  if (typeof value !== "object" || value === null) throw new Error("not a JSON object");
  const jwk = value as JWK;
  if (typeof jwk.kid !== "string" || jwk.kid === "") throw new Error("has no kid");
  if (!(SIGNING_ALGORITHMS as readonly string[]).includes(String(jwk.alg))) {
    throw new Error(`alg must be one of ${SIGNING_ALGORITHMS.join(", ")}`);
  }
  if (typeof jwk.d !== "string") throw new Error("is not a private key (no d)");
  return jwk as PrivateSigningJwk;
}

/** The public half, as published in the JWKS. */
export function publicJwk(jwk: PrivateSigningJwk): JWK {
  const { kty, crv, x, y, kid, alg } = jwk;
  return { kty, crv, x, ...(y ? { y } : {}), kid, alg, use: "sig" };
}
