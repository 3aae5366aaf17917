/**
 * Recent listing pages, in memory. Every write this process makes to the catalogue bumps the
 * generation and empties the cache, and a page read before a write is never stored after it, so a
 * single catalogue process never serves a stale page; `maxAgeMs` bounds staleness when several
 * processes share one database. `maxAgeMs` 0 turns the cache off.
 */
export interface ListingCache<T> {
  get(key: string): T | undefined;
  /** The generation to pass to `set` for a value about to be read from the database. */
  generation(): number;
  /** Stores `value` unless a write happened since `generation` was taken. */
  set(key: string, value: T, generation: number): void;
  /** Call after every write to the entries. */
  invalidate(): void;
}

export function createListingCache<T>(options: {
  maxAgeMs: number;
  maxEntries: number;
  now?: () => number;
}): ListingCache<T> {
  const now = options.now ?? Date.now;
  let entries = new Map<string, { value: T; at: number }>();
  let generation = 0;
  return {
    get(key) {
      const hit = entries.get(key);
      if (!hit) return undefined;
      if (now() - hit.at > options.maxAgeMs) {
        entries.delete(key);
        return undefined;
      }
      return hit.value;
    },
    generation: () => generation,
    set(key, value, at) {
      if (options.maxAgeMs <= 0 || at !== generation) return;
      if (entries.size >= options.maxEntries) entries = new Map();
      entries.set(key, { value, at: now() });
    },
    invalidate() {
      generation += 1;
      if (entries.size > 0) entries = new Map();
    },
  };
}
