import { Sort } from "@movement-detection/proto/catalogue/v1";

/**
 * The MongoDB filter and sort of a catalogue listing. Every sort ends with `_id` (the movespec_id)
 * so that the order is total: paging never repeats or skips an entry while nothing changes. Each
 * (filter, sort) pair has a compound index (see entry-store.ts).
 */
export interface ListingQuery {
  readonly filter: Record<string, unknown>;
  readonly sort: Record<string, 1 | -1>;
  /** The index meant to serve it (for explain checks in tests). */
  readonly index: string;
}

const SORTS: Readonly<
  Record<Exclude<Sort, Sort.UNSPECIFIED>, { sort: Record<string, 1 | -1>; name: string }>
> = {
  [Sort.RECENT]: { sort: { updated_at: -1, _id: 1 }, name: "recent" },
  [Sort.STARS]: { sort: { star_count: -1, _id: 1 }, name: "stars" },
  [Sort.NAME]: { sort: { name_key: 1, _id: 1 }, name: "name" },
};

export function listingQuery(keywords: readonly string[], sort: Sort): ListingQuery {
  const chosen = SORTS[sort === Sort.UNSPECIFIED ? Sort.RECENT : sort];
  if (keywords.length === 0) {
    return { filter: { listed: true }, sort: chosen.sort, index: `listed_${chosen.name}` };
  }
  // Longest word first: usually the rarest, and MongoDB bounds the index scan of `$all` by its
  // first value (the embedded store picks the rarest itself). The matches are the same either way.
  const words = [...keywords].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  return {
    filter: { keywords: { $all: words }, listed: true },
    sort: chosen.sort,
    index: `search_${chosen.name}`,
  };
}

/** The indexes behind `listingQuery`: the public filter (+ one keyword) then each sort. */
export const LISTING_INDEXES: readonly { name: string; key: Record<string, 1 | -1> }[] =
  Object.values(SORTS).flatMap(({ sort, name }) => [
    { name: `listed_${name}`, key: { listed: 1, ...sort } },
    { name: `search_${name}`, key: { keywords: 1, listed: 1, ...sort } },
  ]);
