import type { Logger } from "@movement-detection/shared/logging";
import type { JSONWebKeySet } from "jose";
import { type JwsKey, jwsKeyOf } from "./compact-jws.js";
import type { KeySource, SourcedKey } from "./key-source.js";
import { publicJwk } from "./signing-key.js";

export interface Signer extends JwsKey {
  readonly kid: string;
}

/**
 * The service's view of its signing keys: the key that signs now and the public key set. Reloads
 * from its source every `reloadMs` (so that every replica sees a rotation made by another) and
 * whenever the schedule changes by itself (an activation, an expiry).
 */
export function createKeyRing(options: {
  source: KeySource;
  reloadMs: number;
  now?: () => number;
  logger: Logger;
}) {
  const now = options.now ?? Date.now;
  let keys: SourcedKey[] = [];
  let signer: Signer | undefined;
  let jwks: JSONWebKeySet = { keys: [] };
  let jwksJson = "";
  let loadedAt = Number.NEGATIVE_INFINITY;
  let nextChangeAt = Number.POSITIVE_INFINITY;
  let loading: Promise<void> | undefined;
  const imported = new Map<string, JwsKey>();

  const load = (): Promise<void> => {
    loading ??= (async () => {
      try {
        const at = now();
        const snapshot = await options.source.load(at);
        const signing = snapshot.keys.find((key) => key.state.signing);
        if (!signing) throw new Error("no signing key is active");
        let key = imported.get(signing.jwk.kid);
        if (!key) {
          key = jwsKeyOf(signing.jwk);
          imported.set(signing.jwk.kid, key);
        }
        if (signer?.kid !== signing.jwk.kid) {
          options.logger.info(
            { kid: signing.jwk.kid, source: options.source.kind },
            "signing with key",
          );
        }
        keys = snapshot.keys;
        signer = { kid: signing.jwk.kid, ...key };
        jwks = { keys: keys.filter((k) => k.state.published).map((k) => publicJwk(k.jwk)) };
        jwksJson = JSON.stringify(jwks);
        loadedAt = at;
        nextChangeAt = snapshot.nextChangeAt;
      } finally {
        loading = undefined;
      }
    })();
    return loading;
  };

  const fresh = async (): Promise<void> => {
    const at = now();
    if (at - loadedAt < options.reloadMs && at < nextChangeAt) return;
    try {
      await load();
    } catch (error) {
      // Keep signing with what we have: a source hiccup must not stop token issuance.
      if (!signer) throw error;
      options.logger.warn({ err: (error as Error).message }, "signing keys reload failed");
    }
  };

  return {
    load,
    async signer(): Promise<Signer> {
      await fresh();
      return signer as Signer;
    },
    async jwksJson(): Promise<string> {
      await fresh();
      return jwksJson;
    },
    async states(): Promise<(SourcedKey["state"] & { alg: string })[]> {
      await load();
      return keys.map((key) => ({ ...key.state, alg: key.jwk.alg }));
    },
    sourceKind: options.source.kind,
    async rotate(delaySeconds: number): Promise<string | undefined> {
      if (!options.source.rotate) return undefined;
      const kid = await options.source.rotate(now(), delaySeconds);
      await load();
      return kid;
    },
  };
}

export type KeyRing = ReturnType<typeof createKeyRing>;
