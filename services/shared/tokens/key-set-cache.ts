import { type CryptoKey, importJWK, type JSONWebKeySet, type JWK } from "jose";
import { Reason } from "../errors/reasons.js";
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from "./token-config.js";
import { KeySetUnavailableError, TokenError } from "./token-error.js";

export interface KeySetCacheOptions {
  readonly fetchJwks: () => Promise<JSONWebKeySet>;
  /** Refetch in the background of a lookup once the set is older than this. Default 5 min. */
  readonly maxAgeMs?: number;
  /**
   * An unknown `kid` triggers a refetch at most this often (later ones wait for the next slot), so
   * that a flood of tokens with made-up key ids cannot flood the auth service. Default 1 s.
   */
  readonly minRefreshIntervalMs?: number;
  readonly now?: () => number;
}

interface CachedKey {
  readonly key: CryptoKey;
  readonly alg: SigningAlgorithm;
}

/**
 * The verifier's copy of the signer's public keys: imported once per `kid`, refreshed when stale
 * or when a token names a key it has not seen (a rotation), and kept when a refresh fails (the
 * auth service being down does not stop verification with the keys already known).
 */
export function createKeySetCache(options: KeySetCacheOptions) {
  const maxAgeMs = options.maxAgeMs ?? 5 * 60_000;
  const minRefreshIntervalMs = options.minRefreshIntervalMs ?? 1000;
  const now = options.now ?? Date.now;
  let keys = new Map<string, CachedKey>();
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let loaded = false;
  let inFlight: Promise<void> | undefined;
  let fetchesStarted = 0;

  const refresh = (): Promise<void> => {
    inFlight ??= (async () => {
      fetchesStarted += 1;
      try {
        const set = await options.fetchJwks();
        keys = await importKeys(set, keys);
        loaded = true;
      } finally {
        fetchedAt = now();
        inFlight = undefined;
      }
    })();
    return inFlight;
  };

  const refreshOrFail = async (): Promise<void> => {
    try {
      await refresh();
    } catch (error) {
      if (!loaded) throw new KeySetUnavailableError(error);
    }
  };

  return {
    /** The public key for a token's protected header, or TokenError TOKEN_INVALID. */
    async resolve(kid: string | undefined, alg: string | undefined): Promise<CryptoKey> {
      if (typeof kid !== "string" || kid === "") {
        throw new TokenError(Reason.tokenInvalid, "the token names no signing key");
      }
      const age = now() - fetchedAt;
      if (!loaded || age > maxAgeMs) await refreshOrFail();
      let found = keys.get(kid);
      if (!found) {
        // A rotation: fetch again, but at most once per interval (a flood of made-up kids waits
        // and shares one fetch rather than reaching the auth service once each).
        const startedBefore = fetchesStarted;
        const wait = fetchedAt + minRefreshIntervalMs - now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        // One fetch that started after this token arrived is enough (another waiter's will do).
        if (fetchesStarted === startedBefore || inFlight) await refreshOrFail();
        found = keys.get(kid);
      }
      if (!found) throw new TokenError(Reason.tokenInvalid, "the token's signing key is unknown");
      if (found.alg !== alg) {
        throw new TokenError(Reason.tokenInvalid, "the token's algorithm does not match its key");
      }
      return found.key;
    },
    /** Fetches now (used at start, so the first request does not pay for it). */
    refresh: refreshOrFail,
    knownKeyIds: (): string[] => [...keys.keys()],
  };
}

export type KeySetCache = ReturnType<typeof createKeySetCache>;

async function importKeys(
  set: JSONWebKeySet,
  previous: ReadonlyMap<string, CachedKey>,
): Promise<Map<string, CachedKey>> {
  const next = new Map<string, CachedKey>();
  for (const jwk of set.keys ?? []) {
    const { kid, alg } = jwk as JWK;
    if (typeof kid !== "string" || !isSigningAlgorithm(alg)) continue;
    if ("d" in jwk) continue; // never trust a set that leaks private keys as a verification key
    const known = previous.get(kid);
    if (known && known.alg === alg) {
      next.set(kid, known);
      continue;
    }
    try {
      next.set(kid, { key: (await importJWK(jwk as JWK, alg)) as CryptoKey, alg });
    } catch {
      // A malformed key is skipped: tokens naming it fail as unknown keys.
    }
  }
  return next;
}

function isSigningAlgorithm(value: unknown): value is SigningAlgorithm {
  return typeof value === "string" && (SIGNING_ALGORITHMS as readonly string[]).includes(value);
}
