/**
 * A very short-lived cache of anonymous catalogue pages in the gateway, with single flight:
 * concurrent requests for the same page share one call to the catalogue, and the serialised page
 * is served for `ttlMs` after it arrived. Every gRPC hop costs the gateway about a millisecond of
 * CPU, so without this a busy catalogue would be bound by that hop (see bench/catalogue/README.md).
 *
 * The public catalogue is already eventually consistent (authoring pushes changes to it), and this
 * adds at most `ttlMs` of staleness. Only successful pages are kept; errors are never cached.
 */
export interface ListingMicroCache {
  /** The cached JSON text of `key`, or the result of `load` (shared with concurrent callers). */
  get(key: string, load: () => Promise<string>): Promise<string>;
}

/** How long a page is served from the gateway's memory (the catalogue itself invalidates on writes). */
export const DEFAULT_LISTING_TTL_MS = 250;

export function createListingMicroCache(options: {
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
}): ListingMicroCache {
  const now = options.now ?? Date.now;
  let pages = new Map<string, { text: string; expires: number }>();
  const inFlight = new Map<string, Promise<string>>();
  return {
    get(key, load) {
      const hit = pages.get(key);
      if (hit && hit.expires > now()) return Promise.resolve(hit.text);
      const pending = inFlight.get(key);
      if (pending) return pending;
      const loading = load().then(
        (text) => {
          inFlight.delete(key);
          if (options.ttlMs > 0) {
            if (pages.size >= options.maxEntries) pages = new Map();
            pages.set(key, { text, expires: now() + options.ttlMs });
          }
          return text;
        },
        (error: unknown) => {
          inFlight.delete(key);
          throw error;
        },
      );
      inFlight.set(key, loading);
      return loading;
    },
  };
}
