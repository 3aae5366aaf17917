import type { Logger } from "@movement-detection/shared/logging";
import type { ReplicaStore } from "../store/replica-store.js";

/**
 * This replica's presence in MongoDB: one document renewed every third of the TTL. Every lease
 * this replica holds is valid only while it is present, so one write per interval keeps all its
 * sessions' leases alive (rather than one write per session).
 *
 * Self-fencing: if renewals fail until the TTL is nearly over, `onLost` runs (the replica stops
 * processing every session) before any other replica may consider it dead and take over.
 */
export interface ReplicaPresence {
  readonly id: string;
  readonly url: string | undefined;
  start(): Promise<void>;
  /** True while this replica's presence is surely still valid. */
  isAlive(): boolean;
  /** Whether another replica incarnation is alive (a dead holder's leases can be taken). */
  isOtherAlive(replicaId: string, url: string | undefined): Promise<boolean>;
  /** Stops renewing and removes the document (graceful shutdown: peers need not wait). */
  stop(): Promise<void>;
}

export interface ReplicaPresenceOptions {
  readonly id: string;
  readonly url: string | undefined;
  readonly ttlMs: number;
  readonly store: ReplicaStore;
  readonly logger: Logger;
  readonly onLost: () => void;
  readonly now?: () => number;
}

export function createReplicaPresence(options: ReplicaPresenceOptions): ReplicaPresence {
  const now = options.now ?? Date.now;
  const startedAt = new Date(now());
  const margin = Math.max(50, Math.floor(options.ttlMs / 5));
  let validUntil = 0;
  let timer: NodeJS.Timeout | undefined;
  let renewing = false;
  let lost = false;

  const renew = async (): Promise<void> => {
    if (renewing) return;
    renewing = true;
    const at = now();
    try {
      await options.store.renew({
        _id: options.id,
        url: options.url,
        started_at: startedAt,
        expires_at: new Date(at + options.ttlMs),
      });
      validUntil = at + options.ttlMs - margin;
      if (lost) options.logger.info("replica presence restored");
      lost = false;
    } catch (error) {
      options.logger.warn({ err: (error as Error).message }, "replica presence renewal failed");
    } finally {
      renewing = false;
    }
  };

  const check = () => {
    if (!lost && now() >= validUntil) {
      lost = true;
      options.logger.error("replica presence expired: stopping every attached session");
      options.onLost();
    }
  };

  return {
    id: options.id,
    url: options.url,
    async start() {
      await renew();
      const interval = Math.max(20, Math.floor(options.ttlMs / 3));
      timer = setInterval(() => {
        check();
        void renew();
      }, interval);
      timer.unref();
    },
    isAlive() {
      return now() < validUntil;
    },
    async isOtherAlive(replicaId, url) {
      // The same address as ours under another id is an earlier incarnation of this process:
      // we hold its port now, so it is certainly dead.
      if (url !== undefined && url === options.url) return false;
      const replica = await options.store.find(replicaId);
      return replica !== null && replica.expires_at.getTime() > now();
    },
    async stop() {
      clearInterval(timer);
      validUntil = 0;
      await options.store.remove(options.id).catch(() => undefined);
    },
  };
}
