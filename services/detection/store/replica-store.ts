import { guardStore } from "@movement-detection/shared/store";
import type { Collection, Db } from "mongodb";

/** One running detection process (an incarnation: a restart is a new one). */
export interface ReplicaDocument {
  _id: string;
  url?: string;
  started_at: Date;
  /** Alive until then; renewed well before. */
  expires_at: Date;
}

/** The `replicas` collection: who is alive, so that a dead holder's leases can be taken. */
export interface ReplicaStore {
  ensureIndexes(): Promise<void>;
  renew(replica: ReplicaDocument): Promise<void>;
  remove(replicaId: string): Promise<void>;
  find(replicaId: string): Promise<ReplicaDocument | null>;
  /** Ids of replicas alive at `now`. */
  alive(now: Date): Promise<Set<string>>;
}

export function createReplicaStore(db: Db): ReplicaStore {
  const replicas: Collection<ReplicaDocument> = db.collection<ReplicaDocument>("replicas");
  return guardStore("replicas", {
    async ensureIndexes() {
      // Long dead incarnations go away by themselves (an hour after they stopped renewing).
      await replicas.createIndex({ expires_at: 1 }, { expireAfterSeconds: 3600, name: "expired" });
    },
    async renew(replica) {
      await replicas.replaceOne({ _id: replica._id }, replica, { upsert: true });
    },
    async remove(replicaId) {
      await replicas.deleteOne({ _id: replicaId });
    },
    find(replicaId) {
      return replicas.findOne({ _id: replicaId });
    },
    async alive(now) {
      const rows = await replicas
        .find({ expires_at: { $gt: now } })
        .project<{ _id: string }>({ _id: 1 })
        .toArray();
      return new Set(rows.map((row) => row._id));
    },
  });
}
