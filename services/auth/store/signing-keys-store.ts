import type { Collection, Db } from "mongodb";
import { guardStore } from "../../shared/store/store-errors.js";
import type { SealedJwk } from "../signing/key-encryption.js";

/** A signing key of the embedded default (production keys come from SIGNING_KEYS_DIR). */
export interface SigningKeyRecord {
  _id: string;
  alg: string;
  /** The private JWK, sealed under a key-encryption key the database never holds. */
  sealed_private_jwk?: SealedJwk;
  /** Before keys were sealed: plaintext, sealed (and removed) at the next load. */
  private_jwk?: Record<string, unknown>;
  created_at: Date;
  activates_at: Date;
}

export function createSigningKeysStore(db: Db) {
  const collection: Collection<SigningKeyRecord> = db.collection("signing_keys");
  return guardStore("signing_keys", {
    async insert(record: SigningKeyRecord): Promise<void> {
      await collection.insertOne(record);
    },
    list(): Promise<SigningKeyRecord[]> {
      return collection.find({}).sort({ activates_at: 1, _id: 1 }).toArray();
    },
    /** Replaces a record's key material with `sealed` (and drops any plaintext). */
    async reseal(id: string, sealed: SealedJwk): Promise<void> {
      await collection.updateOne(
        { _id: id },
        { $set: { sealed_private_jwk: sealed }, $unset: { private_jwk: "" } },
      );
    },
    async remove(ids: readonly string[]): Promise<void> {
      if (ids.length > 0) await collection.deleteMany({ _id: { $in: [...ids] } });
    },
  });
}

export type SigningKeysStore = ReturnType<typeof createSigningKeysStore>;
