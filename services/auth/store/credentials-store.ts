import { guardStore } from "@movement-detection/shared/store";
import type { CredentialKind } from "@movement-detection/shared/tokens";
import type { Collection, Db } from "mongodb";

/** An API key or a service account: its secret is never stored, only its keyed hash. */
export interface CredentialRecord {
  _id: string;
  type: CredentialKind;
  organization_id: string;
  project_id: string;
  name: string;
  scopes: string[];
  secret_hash: string;
  secret_hint: string;
  created_at: Date;
  revoked_at?: Date;
}

export function createCredentialsStore(db: Db) {
  const collection: Collection<CredentialRecord> = db.collection("credentials");
  return guardStore("credentials", {
    async createIndexes(): Promise<void> {
      await collection.createIndex(
        { secret_hash: 1 },
        { unique: true, name: "secret_hash_unique" },
      );
      await collection.createIndex({ project_id: 1, type: 1 }, { name: "project_type" });
    },
    async insert(record: CredentialRecord): Promise<void> {
      await collection.insertOne(record);
    },
    find(id: string): Promise<CredentialRecord | null> {
      return collection.findOne({ _id: id });
    },
    /** The `api_key` shorthand: the key is found by the hash of its secret. */
    /** The credential of one type whose secret has this hash (the unique index answers). */
    findByHash(
      secretHash: string,
      type: CredentialRecord["type"],
    ): Promise<CredentialRecord | null> {
      return collection.findOne({ secret_hash: secretHash, type });
    },
    list(projectId: string, type: CredentialKind): Promise<CredentialRecord[]> {
      return collection.find({ project_id: projectId, type }).sort({ _id: 1 }).toArray();
    },
    /** Sets revoked_at once (revoking twice keeps the first time). */
    async revoke(id: string, at: Date): Promise<CredentialRecord | null> {
      await collection.updateOne(
        { _id: id, revoked_at: { $exists: false } },
        { $set: { revoked_at: at } },
      );
      return collection.findOne({ _id: id });
    },
  });
}

export type CredentialsStore = ReturnType<typeof createCredentialsStore>;
