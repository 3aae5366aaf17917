import { createPrivateKey, type KeyObject, sign } from "node:crypto";
import type { SigningAlgorithm } from "@movement-detection/shared/tokens";
import type { PrivateSigningJwk } from "./signing-key.js";

/** A private signing key as node:crypto signs with it, and the JWS `alg` it signs for. */
export interface JwsKey {
  readonly alg: SigningAlgorithm;
  readonly key: KeyObject;
}

/** The key type and curve node:crypto reports for each algorithm's keys. */
const KEY_SHAPES: Record<SigningAlgorithm, { type: string; curve?: string }> = {
  EdDSA: { type: "ed25519" },
  ES256: { type: "ec", curve: "prime256v1" },
};

/**
 * The private key of a JWK, refused here (at load, not at the first token) when it is not a key
 * of its own `alg`: an `ES256` label on an Ed25519 key, say.
 */
export function jwsKeyOf(jwk: PrivateSigningJwk): JwsKey {
  const key = createPrivateKey({ key: { ...jwk }, format: "jwk" });
  const shape = KEY_SHAPES[jwk.alg];
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType !== shape.type || (shape.curve && curve !== shape.curve)) {
    throw new Error(`key ${jwk.kid} is not an ${jwk.alg} key`);
  }
  return { alg: jwk.alg, key };
}

/**
 * A JWS in compact serialization (RFC 7515 §7.1) of a JSON payload, signed at once with
 * node:crypto: what jose's SignJWT writes for the same header and claims, without WebCrypto's
 * job and promise per signature (about 40 µs of CPU per token on the 2-core machine,
 * bench/auth/README.md). The header's `alg` is the key's. ES256 signatures are R || S (RFC 7518 §3.4),
 * not DER.
 */
export function signCompactJws(
  header: { readonly kid: string; readonly typ: string },
  payload: Readonly<Record<string, unknown>>,
  signer: JwsKey,
): string {
  const input = `${encodedHeader(signer, header.kid, header.typ)}.${base64url(payload)}`;
  const data = Buffer.from(input, "ascii");
  const signature =
    signer.alg === "EdDSA"
      ? sign(null, data, signer.key)
      : sign("sha256", data, { key: signer.key, dsaEncoding: "ieee-p1363" });
  return `${input}.${signature.toString("base64url")}`;
}

/** Each key's headers, encoded once: a few kinds of token are signed with one key for hours. */
const headers = new WeakMap<JwsKey, Map<string, string>>();

function encodedHeader(signer: JwsKey, kid: string, typ: string): string {
  let byTyp = headers.get(signer);
  if (!byTyp) {
    byTyp = new Map();
    headers.set(signer, byTyp);
  }
  const key = `${kid} ${typ}`;
  let encoded = byTyp.get(key);
  if (encoded === undefined) {
    encoded = base64url({ alg: signer.alg, kid, typ });
    byTyp.set(key, encoded);
  }
  return encoded;
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
}
