import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { generateKeyEncryptionKey } from "../../services/auth/signing/key-encryption.js";

/**
 * The development secrets of `npm start` (and of each test system): the auth service's pepper and
 * the key-encryption key that seals its signing keys in the database. Generated once, each in its
 * own 0600 file in a 0700 directory beside (never inside) the store's data files, and handed to
 * auth as AUTH_SECRET_PEPPER_FILE and KEY_ENCRYPTION_KEYS_FILE, so they are in no environment,
 * no log and no database. Production supplies both from its own Secrets (deploy/README.md).
 */
export interface DevSecrets {
  readonly pepperFile: string;
  readonly keyEncryptionKeysFile: string;
}

export async function ensureDevSecrets(dir: string): Promise<DevSecrets> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const pepperFile = join(dir, "auth-secret-pepper");
  const keyEncryptionKeysFile = join(dir, "key-encryption-keys");
  await ensureFile(pepperFile, () => randomBytes(32).toString("base64url"));
  await ensureFile(keyEncryptionKeysFile, () => generateKeyEncryptionKey("dev1"));
  return { pepperFile, keyEncryptionKeysFile };
}

async function ensureFile(path: string, make: () => string): Promise<void> {
  const existing = await readFile(path, "utf8").catch(() => undefined);
  if (existing !== undefined && existing.trim() !== "") {
    await chmod(path, 0o600);
    return;
  }
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${make()}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}
