import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * Envelope encryption of the signing keys the embedded default keeps in its database: each
 * private JWK is sealed with AES-256-GCM under a key-encryption key (KEK) from configuration
 * (KEY_ENCRYPTION_KEYS or KEY_ENCRYPTION_KEYS_FILE, a mounted Secret), so the database alone
 * holds nothing that signs. Everything the service believes about the key besides its private
 * half (kid, algorithm, public key, creation and activation times: the KeyBinding) is the
 * additional data: anyone who can write to the store but holds no KEK cannot make a record that
 * opens, copy one under another kid, move its activation or swap its public key.
 *
 * Rotation: the list holds `<id>:<key>` entries, the first one seals, every one opens. Put a new
 * KEK first and keep the old one after it; the auth service re-seals every record under the new
 * one when it loads them (log "signing keys re-sealed"); then the old entry can go.
 */
export interface KeyEncryptionKeys {
  readonly currentId: string;
  readonly byId: ReadonlyMap<string, Buffer>;
}

export interface SealedJwk {
  /** 2: bound to the KeyBinding. Absent on records an older version sealed (kid only). */
  readonly v?: typeof SEAL_VERSION;
  readonly kek_id: string;
  readonly alg: "A256GCM";
  readonly iv: string;
  readonly ciphertext: string;
  readonly tag: string;
}

/** What a sealed record says about its key, besides the private half: all of it authenticated. */
export interface KeyBinding {
  readonly kid: string;
  readonly alg: string;
  /** The public key's members (kty, crv, x, y), as the record keeps them in clear. */
  readonly publicKey: Readonly<Record<string, unknown>>;
  readonly createdAt: number;
  readonly activatesAt: number;
}

export const SEAL_VERSION = 2;

const ENTRY = /^([A-Za-z0-9._-]{1,64}):([A-Za-z0-9_-]{43}=?)$/;

/** Parses `id:base64url(32 bytes)[,id2:...]`; the error message never echoes a key. */
export function parseKeyEncryptionKeys(text: string): KeyEncryptionKeys {
  const byId = new Map<string, Buffer>();
  const entries = text
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (entries.length === 0) throw new Error("holds no key");
  for (const [index, entry] of entries.entries()) {
    const match = ENTRY.exec(entry);
    const key = match ? Buffer.from(match[2], "base64url") : undefined;
    if (!match || key?.length !== 32) {
      throw new Error(
        `entry ${index + 1} must be <id>:<32 random bytes in base64url> (generate one with: node -e "console.log('k1:'+require('crypto').randomBytes(32).toString('base64url'))")`,
      );
    }
    if (byId.has(match[1])) throw new Error(`names key id ${match[1]} twice`);
    byId.set(match[1], key);
  }
  return { currentId: [...byId.keys()][0], byId };
}

export function generateKeyEncryptionKey(id = "k1"): string {
  return `${id}:${randomBytes(32).toString("base64url")}`;
}

/**
 * One text per binding: fixed member order, the public key's members sorted, times in ms. A
 * value that is not what the service wrote (a string for a date, an extra member) changes it.
 */
function additionalData(binding: KeyBinding): Buffer {
  const publicKey = Object.keys(binding.publicKey)
    .sort()
    .map((name) => [name, binding.publicKey[name]]);
  const text = JSON.stringify([
    "movement-detection signing key",
    SEAL_VERSION,
    binding.kid,
    binding.alg,
    publicKey,
    binding.createdAt,
    binding.activatesAt,
  ]);
  return Buffer.from(text, "utf8");
}

export function sealJwk(keys: KeyEncryptionKeys, binding: KeyBinding, jwk: object): SealedJwk {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keys.byId.get(keys.currentId) as Buffer, iv);
  cipher.setAAD(additionalData(binding));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(jwk), "utf8"), cipher.final()]);
  return {
    v: SEAL_VERSION,
    kek_id: keys.currentId,
    alg: "A256GCM",
    iv: iv.toString("base64url"),
    ciphertext: ciphertext.toString("base64url"),
    tag: cipher.getAuthTag().toString("base64url"),
  };
}

/** Why a sealed key does not open: its KEK is not configured, or it is not what was sealed. */
export class SealError extends Error {
  constructor(
    readonly problem: "unknown_kek" | "not_authentic",
    message: string,
  ) {
    super(message);
    this.name = "SealError";
  }
}

/** The JWK a record sealed under `binding`; throws SealError otherwise. */
export function openJwk(keys: KeyEncryptionKeys, binding: KeyBinding, sealed: SealedJwk): unknown {
  const kek = keys.byId.get(sealed.kek_id);
  if (!kek) {
    throw new SealError(
      "unknown_kek",
      `is sealed under key-encryption key "${sealed.kek_id}", which KEY_ENCRYPTION_KEYS does not hold`,
    );
  }
  try {
    // A full 16-byte tag only: GCM accepts 4 bytes, which a forger could guess.
    const decipher = createDecipheriv("aes-256-gcm", kek, Buffer.from(sealed.iv, "base64url"), {
      authTagLength: 16,
    });
    decipher.setAAD(additionalData(binding));
    decipher.setAuthTag(Buffer.from(sealed.tag, "base64url"));
    const text = Buffer.concat([
      decipher.update(Buffer.from(sealed.ciphertext, "base64url")),
      decipher.final(),
    ]).toString("utf8");
    return JSON.parse(text);
  } catch {
    throw new SealError(
      "not_authentic",
      `does not open under key-encryption key "${sealed.kek_id}" with its kid, algorithm, public key and times: altered, copied or forged`,
    );
  }
}
