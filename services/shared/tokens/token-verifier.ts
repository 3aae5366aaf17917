import { errors, type JSONWebKeySet, type JWTPayload, jwtVerify } from "jose";
import { Reason } from "../errors/reasons.js";
import { type AccessClaims, CLAIM, type CredentialKind, type RuntimeClaims } from "./claims.js";
import { createKeySetCache } from "./key-set-cache.js";
import { isScope, type Scope } from "./scopes.js";
import {
  ACCESS_TOKEN_AUDIENCE,
  ACCESS_TOKEN_TYPE,
  DEFAULT_TOKEN_SETTINGS,
  maxTokenLifetimeSeconds,
  RUNTIME_TOKEN_AUDIENCE,
  RUNTIME_TOKEN_TYPE,
  SIGNING_ALGORITHMS,
} from "./token-config.js";
import { KeySetUnavailableError, TokenError } from "./token-error.js";

export interface TokenVerifierOptions {
  /** The signer's public keys, e.g. the auth service's GetJwks parsed from `jwks_json`. */
  readonly fetchJwks: () => Promise<JSONWebKeySet>;
  readonly issuer: string;
  /** Default DEFAULT_TOKEN_SETTINGS.clockToleranceSeconds (5 s). */
  readonly clockToleranceSeconds?: number;
  /**
   * The longest a token may live, `exp - iat` and `exp - now` (plus the clock tolerance); longer
   * ones are TOKEN_INVALID. Default maxTokenLifetimeSeconds(DEFAULT_TOKEN_SETTINGS) (24 h).
   */
  readonly maxLifetimeSeconds?: number;
  /** See createKeySetCache. */
  readonly jwksMaxAgeMs?: number;
  readonly jwksMinRefreshIntervalMs?: number;
  /** Milliseconds since the epoch; tests pass a fake clock. */
  readonly now?: () => number;
  /**
   * Verified tokens remembered (per kind), so a client reusing its token pays for the signature
   * once. 0 disables. Default 10,000.
   */
  readonly cacheSize?: number;
}

export interface TokenVerifier {
  /** Throws TokenError (TOKEN_INVALID / TOKEN_EXPIRED) or KeySetUnavailableError. */
  verifyAccessToken(token: string): Promise<AccessClaims>;
  verifyRuntimeToken(token: string): Promise<RuntimeClaims>;
  /** Loads the key set now, so that the first request does not wait for it. Never throws. */
  warmUp(): Promise<void>;
}

/**
 * Local verification: signature, algorithm allow-list, `typ`, `iss`, `aud`, `exp`, `iat`, and a
 * lifetime no longer than this system's tokens have.
 */
export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  const now = options.now ?? Date.now;
  const tolerance = options.clockToleranceSeconds ?? DEFAULT_TOKEN_SETTINGS.clockToleranceSeconds;
  const lifetimeLimit =
    (options.maxLifetimeSeconds ?? maxTokenLifetimeSeconds(DEFAULT_TOKEN_SETTINGS)) + tolerance;
  const keys = createKeySetCache({
    fetchJwks: options.fetchJwks,
    maxAgeMs: options.jwksMaxAgeMs,
    minRefreshIntervalMs: options.jwksMinRefreshIntervalMs,
    now,
  });

  const accessCache = createVerifiedCache<AccessClaims>(options.cacheSize ?? 10_000);
  const runtimeCache = createVerifiedCache<RuntimeClaims>(options.cacheSize ?? 10_000);
  /** A remembered token still has to be unexpired now. */
  const remembered = <T extends { exp: number }>(claims: T | undefined): T | undefined => {
    if (claims && claims.exp + tolerance <= now() / 1000) {
      throw new TokenError(Reason.tokenExpired, "the token has expired");
    }
    return claims;
  };

  const verify = async (token: string, audience: string, typ: string): Promise<JWTPayload> => {
    if (typeof token !== "string" || token.length > 8192 || !isCanonicalJws(token)) {
      throw new TokenError(Reason.tokenInvalid, "the token is not a JWT");
    }
    const currentDate = new Date(now());
    try {
      const { payload } = await jwtVerify(token, (header) => keys.resolve(header.kid, header.alg), {
        algorithms: [...SIGNING_ALGORITHMS],
        issuer: options.issuer,
        audience,
        typ,
        clockTolerance: tolerance,
        currentDate,
        requiredClaims: ["iss", "aud", "exp", "iat", "jti", "sub"],
      });
      if (
        typeof payload.iat !== "number" ||
        payload.iat > currentDate.getTime() / 1000 + tolerance
      ) {
        throw new TokenError(Reason.tokenInvalid, "the token was issued in the future");
      }
      if (
        livesTooLong(
          payload.exp as number,
          payload.iat,
          currentDate.getTime() / 1000,
          lifetimeLimit,
        )
      ) {
        throw new TokenError(
          Reason.tokenInvalid,
          "the token lives longer than any this system issues",
        );
      }
      return payload;
    } catch (error) {
      throw translate(error);
    }
  };

  return {
    async verifyAccessToken(token) {
      const known = remembered(accessCache.get(token));
      if (known) return known;
      const payload = await verify(token, ACCESS_TOKEN_AUDIENCE, ACCESS_TOKEN_TYPE);
      const scope = payload[CLAIM.scope];
      const credentialType = payload[CLAIM.credentialType];
      const scopes = typeof scope === "string" ? scope.split(" ").filter((s) => s !== "") : null;
      if (
        !scopes?.every(isScope) ||
        (credentialType !== "api_key" && credentialType !== "service_account")
      ) {
        throw new TokenError(Reason.tokenInvalid, "the token's claims are malformed");
      }
      return accessCache.set(token, {
        tokenId: payload.jti as string,
        credentialId: payload.sub as string,
        credentialType: credentialType as CredentialKind,
        organizationId: stringClaim(payload, CLAIM.organizationId),
        projectId: stringClaim(payload, CLAIM.projectId),
        scopes: Object.freeze(scopes as Scope[]),
        iat: payload.iat as number,
        exp: payload.exp as number,
      });
    },
    async verifyRuntimeToken(token) {
      const known = remembered(runtimeCache.get(token));
      if (known) return known;
      const payload = await verify(token, RUNTIME_TOKEN_AUDIENCE, RUNTIME_TOKEN_TYPE);
      return runtimeCache.set(token, {
        tokenId: payload.jti as string,
        sessionId: payload.sub as string,
        organizationId: stringClaim(payload, CLAIM.organizationId),
        projectId: stringClaim(payload, CLAIM.projectId),
        iat: payload.iat as number,
        exp: payload.exp as number,
      });
    },
    async warmUp() {
      await keys.refresh().catch(() => undefined);
    },
  };
}

/**
 * A token this system issued lives at most the limit: a longer one (by its own claims, or by what
 * is left of it now) was signed by a key someone else holds, or by a broken signer. Checking both
 * bounds a token whose `iat` is pushed back as well as one whose `exp` is pushed out.
 */
function livesTooLong(exp: number, iat: number, nowSeconds: number, limitSeconds: number): boolean {
  return exp - iat > limitSeconds || exp - nowSeconds > limitSeconds;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Three base64url segments, each the one encoding of its bytes: no padding, and no set bits past
 * the last byte in its last character. The decoder ignores both, so without this check a token
 * changed in those places would still verify: one token, many texts.
 */
function isCanonicalJws(token: string): boolean {
  const segments = token.split(".");
  return (
    segments.length === 3 &&
    segments.every(
      (segment) =>
        BASE64URL.test(segment) &&
        Buffer.from(segment, "base64url").toString("base64url") === segment,
    )
  );
}

/**
 * Tokens that verified, by their exact text (signature included, so a changed byte misses).
 * Safe because a token's verdict never changes except by expiry, which the caller re-checks, and
 * a key leaves the JWKS only after every token it signed has expired. Oldest entries go first.
 */
function createVerifiedCache<T extends object>(size: number) {
  const entries = new Map<string, T>();
  return {
    get: (token: string): T | undefined => entries.get(token),
    set(token: string, claims: T): T {
      const frozen = Object.freeze(claims);
      if (size <= 0) return frozen;
      if (entries.size >= size) entries.delete(entries.keys().next().value as string);
      entries.set(token, frozen);
      return frozen;
    },
  };
}

function stringClaim(payload: JWTPayload, name: string): string {
  const value = payload[name];
  if (typeof value !== "string" || value === "") {
    throw new TokenError(Reason.tokenInvalid, `the token lacks the ${name} claim`);
  }
  return value;
}

function translate(error: unknown): Error {
  if (error instanceof TokenError || error instanceof KeySetUnavailableError) return error;
  if (error instanceof errors.JWTExpired) {
    return new TokenError(Reason.tokenExpired, "the token has expired");
  }
  return new TokenError(Reason.tokenInvalid, "the token is not valid");
}
