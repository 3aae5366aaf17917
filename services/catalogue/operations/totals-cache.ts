/**
 * Totals of listings, by search words ("" for the whole catalogue). Counting is the expensive part
 * of an uncached page (the index range of a word, or all listed entries, is walked), and a write
 * changes few totals: exactly those of the searches the entry matched before and not after, or the
 * other way round (the catalogue's total when it enters or leaves the listing). Stars change none.
 * So totals are dropped selectively, and a count read before a change is never stored after it. `maxAgeMs` bounds
 * staleness when several catalogue processes share one database.
 */
export interface TotalsCache {
  get(words: readonly string[]): number | undefined;
  /** Pass to `set`: the state of the cache when the count started. */
  generation(): number;
  set(words: readonly string[], total: number, generation: number): void;
  /** An entry changed: `before`/`after` are its listed keywords (undefined when not listed). */
  entryChanged(before: readonly string[] | undefined, after: readonly string[] | undefined): void;
}

/** Whether a listed entry with these keywords (undefined: not listed) counts for a search. */
function matches(keywords: readonly string[] | undefined, words: readonly string[]): boolean {
  return keywords !== undefined && words.every((word) => keywords.includes(word));
}

export function createTotalsCache(options: {
  maxAgeMs: number;
  maxEntries: number;
  now?: () => number;
}): TotalsCache {
  const now = options.now ?? Date.now;
  let totals = new Map<string, { total: number; at: number; words: readonly string[] }>();
  let generation = 0;
  const keyOf = (words: readonly string[]) => [...words].sort().join(" ");
  return {
    get(words) {
      const hit = totals.get(keyOf(words));
      if (!hit || now() - hit.at > options.maxAgeMs) return undefined;
      return hit.total;
    },
    generation: () => generation,
    set(words, total, at) {
      if (options.maxAgeMs <= 0 || at !== generation) return;
      if (totals.size >= options.maxEntries) totals = new Map();
      totals.set(keyOf(words), { total, at: now(), words });
    },
    entryChanged(before, after) {
      if (before === undefined && after === undefined) return;
      const same =
        before !== undefined &&
        after !== undefined &&
        before.length === after.length &&
        before.every((word) => after.includes(word));
      if (same) return;
      // A count read while this happens may miss it: never store it (see `set`).
      generation += 1;
      for (const [key, cached] of totals) {
        if (matches(before, cached.words) !== matches(after, cached.words)) totals.delete(key);
      }
    },
  };
}
