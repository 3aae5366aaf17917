import { type Env, envInt, envString } from "../config/env.js";

/**
 * Token settings shared by the signer (auth service) and every verifier (gateway, detection):
 * one place, so that both sides agree on issuer, audiences, types and algorithms.
 *
 * Access and runtime tokens differ in both `aud` and `typ` (RFC 8725 section 3.11): a runtime
 * token can never pass as an access token, nor the reverse.
 */
export const DEFAULT_TOKEN_ISSUER = "urn:movement-detection:auth";
export const ACCESS_TOKEN_AUDIENCE = "urn:movement-detection:api";
export const RUNTIME_TOKEN_AUDIENCE = "urn:movement-detection:realtime";
/** RFC 9068's media type for JWT access tokens. */
export const ACCESS_TOKEN_TYPE = "at+jwt";
export const RUNTIME_TOKEN_TYPE = "runtime+jwt";

/** The fixed allow-list of signature algorithms; `none` and HMAC are never accepted. */
export const SIGNING_ALGORITHMS = ["EdDSA", "ES256"] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

export interface TokenSettings {
  readonly issuer: string;
  /** Lifetime of access tokens minted by the exchange. */
  readonly accessTokenTtlSeconds: number;
  /** Lifetime of runtime tokens when the caller does not ask for one. */
  readonly runtimeTokenTtlSeconds: number;
  /** Longest runtime token the service mints; also how long a retired key keeps verifying. */
  readonly runtimeTokenMaxTtlSeconds: number;
  /** Accepted clock difference between signer and verifier, for `exp` and `iat`. */
  readonly clockToleranceSeconds: number;
  /**
   * Verifiers: how often a token naming a key they do not know (a rotation, or a forgery) may
   * make them fetch the public keys again; such tokens wait for the next fetch.
   */
  readonly keysRefetchIntervalMs: number;
}

export const DEFAULT_TOKEN_SETTINGS: TokenSettings = Object.freeze({
  issuer: DEFAULT_TOKEN_ISSUER,
  accessTokenTtlSeconds: 900,
  // A session may run 4 h and clients reattach with the same token: 4 h plus the attach timeout.
  runtimeTokenTtlSeconds: 4 * 3600 + 600,
  runtimeTokenMaxTtlSeconds: 24 * 3600,
  clockToleranceSeconds: 5,
  keysRefetchIntervalMs: 1000,
});

/**
 * Reads the token settings; called by each process's `config.ts` (the only readers of the
 * environment). Variables: TOKEN_ISSUER, ACCESS_TOKEN_TTL_SECONDS, RUNTIME_TOKEN_TTL_SECONDS,
 * RUNTIME_TOKEN_MAX_TTL_SECONDS, TOKEN_CLOCK_TOLERANCE_SECONDS, TOKEN_KEYS_REFETCH_INTERVAL_MS.
 */
export function readTokenSettings(env: Env): TokenSettings {
  const defaults = DEFAULT_TOKEN_SETTINGS;
  const runtimeTokenMaxTtlSeconds = envInt(
    env,
    "RUNTIME_TOKEN_MAX_TTL_SECONDS",
    defaults.runtimeTokenMaxTtlSeconds,
    { min: 60, max: 7 * 24 * 3600 },
  );
  return Object.freeze({
    issuer: envString(env, "TOKEN_ISSUER", defaults.issuer),
    accessTokenTtlSeconds: envInt(env, "ACCESS_TOKEN_TTL_SECONDS", defaults.accessTokenTtlSeconds, {
      min: 1,
      max: 24 * 3600,
    }),
    runtimeTokenTtlSeconds: envInt(
      env,
      "RUNTIME_TOKEN_TTL_SECONDS",
      Math.min(defaults.runtimeTokenTtlSeconds, runtimeTokenMaxTtlSeconds),
      { min: 1, max: runtimeTokenMaxTtlSeconds },
    ),
    runtimeTokenMaxTtlSeconds,
    clockToleranceSeconds: envInt(
      env,
      "TOKEN_CLOCK_TOLERANCE_SECONDS",
      defaults.clockToleranceSeconds,
      { min: 0, max: 300 },
    ),
    keysRefetchIntervalMs: envInt(
      env,
      "TOKEN_KEYS_REFETCH_INTERVAL_MS",
      defaults.keysRefetchIntervalMs,
      { min: 10, max: 60_000 },
    ),
  });
}

/**
 * The longest lifetime of any token this system issues (24 h by default): verifiers refuse a
 * token living longer (plus the clock tolerance), whoever signed it.
 */
export function maxTokenLifetimeSeconds(settings: TokenSettings): number {
  return Math.max(settings.accessTokenTtlSeconds, settings.runtimeTokenMaxTtlSeconds);
}

/** How long a key that stopped signing must stay published: until its last token expired. */
export function keyRetentionSeconds(settings: TokenSettings): number {
  return maxTokenLifetimeSeconds(settings) + settings.clockToleranceSeconds;
}

/**
 * The longest a new signing key may wait before it signs (RotateSigningKey's
 * activate_after_seconds, the admin tool's --activate-after): a week.
 */
export const MAX_ACTIVATION_DELAY_SECONDS = 7 * 24 * 3600;
