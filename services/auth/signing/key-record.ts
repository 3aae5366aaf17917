import { SIGNING_ALGORITHMS } from "@movement-detection/shared/tokens";
import type { SigningKeyRecord } from "../store/signing-keys-store.js";
import {
  type KeyBinding,
  type KeyEncryptionKeys,
  openJwk,
  SEAL_VERSION,
  SealError,
  type SealedJwk,
} from "./key-encryption.js";
import { type PrivateSigningJwk, parsePrivateJwk } from "./signing-key.js";

/**
 * The store is not a trust anchor, the key-encryption key is: whoever can log into the store can
 * write any record, so a record is believed only when it opens under a KEK with everything it
 * says bound in (key-encryption.ts). These are the ways one is not, as metric labels.
 */
export const REFUSAL_REASONS = [
  /** A private key in clear: this version never writes one, so someone else did. */
  "plaintext",
  /** Sealed by a version that bound only the kid: its schedule and origin cannot be proven. */
  "legacy_sealed",
  /** Missing or ill-typed fields: not a record the service wrote. */
  "malformed",
  /** Sealed in a format this version does not know (a newer one, during an upgrade). */
  "unknown_format",
  /** Sealed under a KEK id KEY_ENCRYPTION_KEYS does not hold: a configuration problem. */
  "unknown_kek",
  /** Does not open with its kid, algorithm, public key and times: altered, copied or forged. */
  "not_authentic",
] as const;

export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export type Judgement =
  | { readonly trusted: true; readonly jwk: PrivateSigningJwk; readonly binding: KeyBinding }
  | { readonly trusted: false; readonly reason: RefusalReason; readonly message: string };

/** The members of a public key, as a record keeps them in clear and the binding covers them. */
const PUBLIC_MEMBERS = ["kty", "crv", "x", "y"] as const;

export function publicMembers(jwk: object): Record<string, string> {
  const members: Record<string, string> = {};
  for (const name of PUBLIC_MEMBERS) {
    const value = (jwk as Record<string, unknown>)[name];
    if (typeof value === "string") members[name] = value;
  }
  return members;
}

/** Whether the service trusts a record it read from the store, and if so its private key. */
export function judgeRecord(record: SigningKeyRecord, keys: KeyEncryptionKeys): Judgement {
  if (record.private_jwk !== undefined) {
    return refused("plaintext", "holds a private key in clear, which this version never writes");
  }
  const sealed = record.sealed_private_jwk;
  if (!isSealed(sealed)) return refused("malformed", "holds no sealed key material");
  if (sealed.v === undefined) {
    return refused(
      "legacy_sealed",
      "was sealed by an older version, which bound only its kid: its origin cannot be proven",
    );
  }
  if (sealed.v !== SEAL_VERSION) {
    return refused("unknown_format", `is sealed in format ${String(sealed.v).slice(0, 20)}`);
  }
  const binding = bindingOf(record);
  if (!binding) return refused("malformed", "has a missing or ill-typed kid, alg, key or time");
  let opened: unknown;
  try {
    opened = openJwk(keys, binding, sealed);
  } catch (error) {
    if (error instanceof SealError) return refused(error.problem, error.message);
    throw error;
  }
  const jwk = matching(opened, binding);
  if (!jwk) return refused("not_authentic", "holds a key that is not the one it names");
  return { trusted: true, jwk, binding };
}

/** What the record says about its key, if every field has the type the service writes. */
export function bindingOf(record: SigningKeyRecord): KeyBinding | undefined {
  const { _id: kid, alg, public_jwk: publicKey, created_at, activates_at } = record;
  if (typeof kid !== "string" || kid === "") return undefined;
  if (!(SIGNING_ALGORITHMS as readonly unknown[]).includes(alg)) return undefined;
  if (!isPlainObject(publicKey) || typeof publicKey.x !== "string") return undefined;
  if (!isTime(created_at) || !isTime(activates_at)) return undefined;
  return {
    kid,
    alg,
    publicKey,
    createdAt: created_at.getTime(),
    activatesAt: activates_at.getTime(),
  };
}

/**
 * The sealed JWK, if it is the key the record names. The binding already proves the record is
 * what the service sealed; this guards against the service itself ever sealing a mismatch.
 */
function matching(opened: unknown, binding: KeyBinding): PrivateSigningJwk | undefined {
  let jwk: PrivateSigningJwk;
  try {
    jwk = parsePrivateJwk(opened);
  } catch {
    return undefined;
  }
  const stored = JSON.stringify(publicMembers(binding.publicKey));
  const sealed = JSON.stringify(publicMembers(jwk));
  return jwk.kid === binding.kid && jwk.alg === binding.alg && stored === sealed ? jwk : undefined;
}

function refused(reason: RefusalReason, message: string): Judgement {
  return { trusted: false, reason, message };
}

function isSealed(value: unknown): value is SealedJwk {
  if (!isPlainObject(value)) return false;
  return ["kek_id", "iv", "ciphertext", "tag"].every((name) => typeof value[name] === "string");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isTime(value: unknown): value is Date {
  return value instanceof Date && Number.isFinite(value.getTime());
}
