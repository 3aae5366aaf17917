import {
  ConfigError,
  type Env,
  envBool,
  envInt,
  envOptionalString,
  envSecret,
  readServiceConfig,
  type ServiceConfig,
} from "@movement-detection/shared/config";
import { readTokenSettings, type TokenSettings } from "@movement-detection/shared/tokens";
import { type KeyEncryptionKeys, parseKeyEncryptionKeys } from "./signing/key-encryption.js";

export interface AuthConfig extends ServiceConfig {
  readonly tokens: TokenSettings;
  /**
   * Server-side key of the credential-secret HMAC, from configuration only (never the database):
   * AUTH_SECRET_PEPPER or AUTH_SECRET_PEPPER_FILE. `npm start` generates a development one.
   */
  readonly secretPepper: string;
  /** A directory of private JWK files (production); unset: keys generated and kept in MongoDB. */
  readonly signingKeysDir: string | undefined;
  /**
   * The keys that seal signing keys kept in MongoDB (KEY_ENCRYPTION_KEYS or _FILE); required
   * whenever keys are kept there, and in production.
   */
  readonly keyEncryption: KeyEncryptionKeys | undefined;
  readonly signingKeysReloadSeconds: number;
  readonly signingKeyActivationDelaySeconds: number;
  /** Failed credential checks allowed per client address per window before 429. */
  readonly failureLimit: number;
  readonly failureWindowSeconds: number;
  readonly failureBlockSeconds: number;
  /** How long the token paths may use a project as read (recent-projects.ts); 0: never. */
  readonly projectCacheMs: number;
  /**
   * How long runtime tokens may use a credential as read (its revocation); 0: never. A revocation
   * on this replica is seen at once.
   */
  readonly credentialCacheMs: number;
  /**
   * Create a development organization, project and key on an empty database (npm start), handing
   * the key to the launcher through this file descriptor (DEV_CREDENTIALS_FD), never a log.
   */
  readonly devBootstrap: { readonly credentialsFd: number } | undefined;
}

/** The only place the auth service reads its environment (see docs/auth.md, "Configuration"). */
export function loadAuthConfig(env: Env): AuthConfig {
  const base = readServiceConfig(env, { name: "auth", grpcPort: 50051, adminPort: 9101 });
  const production = base.environment === "production";
  const secretPepper = envSecret(env, "AUTH_SECRET_PEPPER");
  if (secretPepper === undefined) {
    throw new ConfigError(
      "AUTH_SECRET_PEPPER",
      "is required (or AUTH_SECRET_PEPPER_FILE): the key of the credential hashes, kept out of the database; `npm start` generates a development one",
    );
  }
  if (secretPepper.length < 32) {
    throw new ConfigError("AUTH_SECRET_PEPPER", "must be at least 32 characters");
  }
  const signingKeysDir = envOptionalString(env, "SIGNING_KEYS_DIR");
  if (production && signingKeysDir === undefined) {
    throw new ConfigError("SIGNING_KEYS_DIR", "is required when ENVIRONMENT=production");
  }
  const kekText = envSecret(env, "KEY_ENCRYPTION_KEYS");
  if (kekText === undefined && (production || signingKeysDir === undefined)) {
    throw new ConfigError(
      "KEY_ENCRYPTION_KEYS",
      "is required (or KEY_ENCRYPTION_KEYS_FILE) to seal the signing keys kept in the database; `npm start` generates a development one",
    );
  }
  let keyEncryption: KeyEncryptionKeys | undefined;
  try {
    keyEncryption = kekText === undefined ? undefined : parseKeyEncryptionKeys(kekText);
  } catch (error) {
    throw new ConfigError("KEY_ENCRYPTION_KEYS", (error as Error).message);
  }
  const bootstrap = envBool(env, "DEV_BOOTSTRAP", false);
  if (production && bootstrap) {
    throw new ConfigError("DEV_BOOTSTRAP", "must not be set when ENVIRONMENT=production");
  }
  const credentialsFd = envInt(env, "DEV_CREDENTIALS_FD", -1, { min: 3, max: 1024 });
  if (bootstrap && credentialsFd < 0) {
    throw new ConfigError(
      "DEV_BOOTSTRAP",
      "needs DEV_CREDENTIALS_FD, the launcher's private channel: the development key is never logged",
    );
  }
  const devBootstrap = bootstrap ? { credentialsFd } : undefined;
  return Object.freeze({
    ...base,
    tokens: readTokenSettings(env),
    secretPepper,
    signingKeysDir,
    keyEncryption,
    signingKeysReloadSeconds: envInt(env, "SIGNING_KEYS_RELOAD_SECONDS", 10, { min: 1, max: 3600 }),
    signingKeyActivationDelaySeconds: envInt(env, "SIGNING_KEY_ACTIVATION_DELAY_SECONDS", 0, {
      min: 0,
      max: 24 * 3600,
    }),
    failureLimit: envInt(env, "AUTH_FAILURE_LIMIT", 10, { min: 1, max: 1_000_000 }),
    failureWindowSeconds: envInt(env, "AUTH_FAILURE_WINDOW_SECONDS", 60, { min: 1, max: 86_400 }),
    failureBlockSeconds: envInt(env, "AUTH_FAILURE_BLOCK_SECONDS", 60, { min: 1, max: 86_400 }),
    projectCacheMs: envInt(env, "AUTH_PROJECT_CACHE_MS", 1000, { min: 0, max: 60_000 }),
    credentialCacheMs: envInt(env, "AUTH_CREDENTIAL_CACHE_MS", 1000, { min: 0, max: 60_000 }),
    devBootstrap,
  });
}
