import { ConfigError, type Env, envBool, envInt, envOptionalString } from "../shared/config/env.js";
import { readServiceConfig, type ServiceConfig } from "../shared/config/service-config.js";
import { readTokenSettings, type TokenSettings } from "../shared/tokens/token-config.js";

export interface AuthConfig extends ServiceConfig {
  readonly tokens: TokenSettings;
  /**
   * Server-side key of the credential-secret HMAC. Required in production; the embedded default
   * generates one and keeps it in its database.
   */
  readonly secretPepper: string | undefined;
  /** A directory of private JWK files (production); unset: keys generated and kept in MongoDB. */
  readonly signingKeysDir: string | undefined;
  readonly signingKeysReloadSeconds: number;
  readonly signingKeyActivationDelaySeconds: number;
  /** Failed credential checks allowed per client address per window before 429. */
  readonly failureLimit: number;
  readonly failureWindowSeconds: number;
  readonly failureBlockSeconds: number;
  /** Create a development organization, project and key on an empty database (npm start). */
  readonly devBootstrap: boolean;
}

/** The only place the auth service reads its environment (see docs/auth.md, "Configuration"). */
export function loadAuthConfig(env: Env): AuthConfig {
  const base = readServiceConfig(env, { name: "auth", grpcPort: 50051, adminPort: 9101 });
  const production = base.environment === "production";
  const secretPepper = envOptionalString(env, "AUTH_SECRET_PEPPER");
  if (production && secretPepper === undefined) {
    throw new ConfigError("AUTH_SECRET_PEPPER", "is required when ENVIRONMENT=production");
  }
  if (secretPepper !== undefined && secretPepper.length < 32) {
    throw new ConfigError("AUTH_SECRET_PEPPER", "must be at least 32 characters");
  }
  const signingKeysDir = envOptionalString(env, "SIGNING_KEYS_DIR");
  if (production && signingKeysDir === undefined) {
    throw new ConfigError("SIGNING_KEYS_DIR", "is required when ENVIRONMENT=production");
  }
  const devBootstrap = envBool(env, "DEV_BOOTSTRAP", false);
  if (production && devBootstrap) {
    throw new ConfigError("DEV_BOOTSTRAP", "must not be set when ENVIRONMENT=production");
  }
  return Object.freeze({
    ...base,
    tokens: readTokenSettings(env),
    secretPepper,
    signingKeysDir,
    signingKeysReloadSeconds: envInt(env, "SIGNING_KEYS_RELOAD_SECONDS", 10, { min: 1, max: 3600 }),
    signingKeyActivationDelaySeconds: envInt(env, "SIGNING_KEY_ACTIVATION_DELAY_SECONDS", 0, {
      min: 0,
      max: 24 * 3600,
    }),
    failureLimit: envInt(env, "AUTH_FAILURE_LIMIT", 10, { min: 1, max: 1_000_000 }),
    failureWindowSeconds: envInt(env, "AUTH_FAILURE_WINDOW_SECONDS", 60, { min: 1, max: 86_400 }),
    failureBlockSeconds: envInt(env, "AUTH_FAILURE_BLOCK_SECONDS", 60, { min: 1, max: 86_400 }),
    devBootstrap,
  });
}
