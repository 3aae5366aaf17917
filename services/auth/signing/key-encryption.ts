import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * Envelope encryption of the signing keys the embedded default keeps in its database: each
 * private JWK is sealed with AES-256-GCM under a key-encryption key (KEK) from configuration
 * (KEY_ENCRYPTION_KEYS or KEY_ENCRYPTION_KEYS_FILE, a mounted Secret), so the database alone
 * holds nothing that signs. The record's kid is bound in as additional data: a sealed key
 * copied onto another record does not open.
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
  readonly kek_id: string;
  readonly alg: "A256GCM";
  readonly iv: string;
  readonly ciphertext: string;
  readonly tag: string;
}

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

function additionalData(kid: string): Buffer {
  return Buffer.from(`movement-detection signing key ${kid}`, "utf8");
}

export function sealJwk(keys: KeyEncryptionKeys, kid: string, jwk: object): SealedJwk {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keys.byId.get(keys.currentId) as Buffer, iv);
  cipher.setAAD(additionalData(kid));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(jwk), "utf8"), cipher.final()]);
  return {
    kek_id: keys.currentId,
    alg: "A256GCM",
    iv: iv.toString("base64url"),
    ciphertext: ciphertext.toString("base64url"),
    tag: cipher.getAuthTag().toString("base64url"),
  };
}

/** The JWK a record sealed; throws when its KEK is not configured or it was tampered with. */
export function openJwk(keys: KeyEncryptionKeys, kid: string, sealed: SealedJwk): unknown {
  const kek = keys.byId.get(sealed.kek_id);
  if (!kek) {
    throw new Error(
      `is sealed under key-encryption key "${sealed.kek_id}", which KEY_ENCRYPTION_KEYS does not hold`,
    );
  }
  try {
    const decipher = createDecipheriv("aes-256-gcm", kek, Buffer.from(sealed.iv, "base64url"));
    decipher.setAAD(additionalData(kid));
    decipher.setAuthTag(Buffer.from(sealed.tag, "base64url"));
    const text = Buffer.concat([
      decipher.update(Buffer.from(sealed.ciphertext, "base64url")),
      decipher.final(),
    ]).toString("utf8");
    return JSON.parse(text);
  } catch {
    throw new Error(
      `does not open under key-encryption key "${sealed.kek_id}" (wrong key or altered)`,
    );
  }
}
