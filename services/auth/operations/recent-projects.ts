import type { ProjectRecord } from "../store/projects-store.js";

/** Records held at most (per cache); past it the least recently read is dropped. */
export const RECENT_RECORDS_MAX = 10_000;

/**
 * The projects the token paths (the exchange, runtime tokens) read, each kept for `ttlMs` after it
 * was read, so that a client exchanging its key again and again costs one store round trip, not
 * two. Those paths only ask whether the project exists and is archived, and an archive done on
 * this replica is seen at once (`forget`); one done on another replica is seen here within
 * `ttlMs`. That lag is small beside what archiving never undid at once: access tokens minted
 * before it verify until they expire (15 minutes by default). Reads that must show the stored
 * project (GetProject) do not come here. `ttlMs` 0: every read goes to the store.
 */
export function createRecentProjects(deps: RecentRecordsDeps<ProjectRecord>) {
  return createRecentRecords(deps);
}

export interface RecentRecordsDeps<R> {
  find: (id: string) => Promise<R | null>;
  ttlMs: number;
  clock: () => number;
  maxEntries?: number;
}

/**
 * Records by id, each kept for `ttlMs` after it was read, as createRecentProjects describes; a
 * record this replica changes is `forget`-ten. The runtime-token path reads credentials through
 * one (a revocation on another replica is seen there within `ttlMs`).
 */
export function createRecentRecords<R>(deps: RecentRecordsDeps<R>) {
  const maxEntries = deps.maxEntries ?? RECENT_RECORDS_MAX;
  const held = new Map<string, { readonly record: R; readonly at: number }>();
  // A read that started before an archive must not put back what the archive removed.
  let forgets = 0;

  return {
    async find(id: string): Promise<R | null> {
      const now = deps.clock();
      const entry = held.get(id);
      // A clock that stepped back counts as expired, not as fresh for ever.
      if (entry && now >= entry.at && now - entry.at < deps.ttlMs) {
        held.delete(id);
        held.set(id, entry);
        return entry.record;
      }
      const forgetsBefore = forgets;
      const record = await deps.find(id);
      held.delete(id);
      if (record && deps.ttlMs > 0 && forgets === forgetsBefore) {
        held.set(id, { record, at: now });
        if (held.size > maxEntries) held.delete(held.keys().next().value as string);
      }
      return record;
    },
    /** This replica changed the record: the next read goes to the store. */
    forget(id: string): void {
      forgets += 1;
      held.delete(id);
    },
    get size(): number {
      return held.size;
    },
  };
}

export type RecentProjects = ReturnType<typeof createRecentProjects>;
export type RecentRecords<R> = ReturnType<typeof createRecentRecords<R>>;
