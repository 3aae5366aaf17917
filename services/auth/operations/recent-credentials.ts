import type { CredentialKind } from "@movement-detection/shared/tokens";
import type { CredentialRecord, CredentialsStore } from "../store/credentials-store.js";
import { createRecentRecords } from "./recent-projects.js";

/**
 * The credentials the token paths read, each kept for `ttlMs` after it was read (as
 * createRecentRecords describes): by id for runtime tokens (is the caller's credential revoked?),
 * by the hash of the presented secret for the exchange. A client exchanging its key again and
 * again then costs no store round trip for the credential, as none for its project.
 *
 * Only found records are kept: an unknown secret (a guess, a typo, a key created a moment ago on
 * another replica) goes to the store every time, so guessing gains nothing from the cache, and a
 * hit needs the right secret. A revocation on this replica is seen at once by both views
 * (`forget`); one on another replica within `ttlMs`, beside the access tokens minted before it,
 * which verify until they expire (15 minutes by default). `ttlMs` 0: every read goes to the store.
 */
export function createRecentCredentials(deps: {
  store: Pick<CredentialsStore, "find" | "findByHash">;
  ttlMs: number;
  clock: () => number;
  maxEntries?: number;
}) {
  const { store, ...held } = deps;
  const byId = createRecentRecords<CredentialRecord>({ ...held, find: (id) => store.find(id) });
  const byHash = createRecentRecords<CredentialRecord>({
    ...held,
    find: (key) => {
      const { type, hash } = splitHashKey(key);
      return store.findByHash(hash, type);
    },
  });

  return {
    find: byId.find,
    findByHash: (secretHash: string, type: CredentialKind) =>
      byHash.find(hashKey(type, secretHash)),
    /** This replica changed the credential `id` (`record` as it now is): the next reads go to the store. */
    forget(id: string, record?: Pick<CredentialRecord, "type" | "secret_hash"> | null): void {
      byId.forget(id);
      if (record) byHash.forget(hashKey(record.type, record.secret_hash));
    },
    get size(): number {
      return byId.size + byHash.size;
    },
  };
}

export type RecentCredentials = ReturnType<typeof createRecentCredentials>;

// A type is one word and a hash has no space: the first space divides them.
const hashKey = (type: CredentialKind, hash: string) => `${type} ${hash}`;

function splitHashKey(key: string): { type: CredentialKind; hash: string } {
  const space = key.indexOf(" ");
  return { type: key.slice(0, space) as CredentialKind, hash: key.slice(space + 1) };
}
