import { guardStore } from "@movement-detection/shared/store";
import type { Collection, Db } from "mongodb";
import type { SealedJwk } from "../signing/key-encryption.js";

/**
 * A signing key of the embedded default (production keys come from SIGNING_KEYS_DIR). Read back,
 * it is only a claim: anyone with the store's credentials can write one, so the key source
 * believes a record only when it opens under the key-encryption key (signing/key-record.ts).
 */
export interface SigningKeyRecord {
  _id: string;
  alg: string;
  /** The public key's members (kty, crv, x, y): bound into the seal, so not replaceable. */
  public_jwk?: Record<string, unknown>;
  /** The private JWK, sealed under a key-encryption key the database never holds. */
  sealed_private_jwk?: SealedJwk;
  /** A private key in clear: never written by this version; a record holding one is refused. */
  private_jwk?: unknown;
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
    /** Replaces a record's sealed key (sealed again under the current key-encryption key). */
    async reseal(id: string, sealed: SealedJwk): Promise<void> {
      await collection.updateOne({ _id: id }, { $set: { sealed_private_jwk: sealed } });
    },
    async remove(ids: readonly string[]): Promise<void> {
      if (ids.length > 0) await collection.deleteMany({ _id: { $in: [...ids] } });
    },
  });
}

export type SigningKeysStore = ReturnType<typeof createSigningKeysStore>;
