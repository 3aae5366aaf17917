import {
  foldAccents,
  SEARCH_QUERY_LIMITS,
  SEARCH_WORD_LENGTH,
  SEARCH_WORDS_VERSION,
  searchWords,
} from "@movement-detection/shared/text";

/**
 * Search words: the catalogue stores the keywords of each entry's name and description in an
 * array with a multikey index, and a search asks for entries holding all the keywords of `q`
 * (`$all`). No `$text`, no Atlas Search: the same query behaves the same on the embedded store and
 * on MongoDB. How text is split into words (case and accent folding, scripts without spaces):
 * services/shared/text/search-words.ts, shared with the gateway, which counts the words of `q`.
 */
export const KEYWORD_LIMITS = {
  /** Characters kept of one keyword (longer words are cut, in entries and queries alike). */
  keywordLength: SEARCH_WORD_LENGTH,
  /** Distinct keywords stored per entry (the name's first, then the description's). */
  keywordsPerEntry: 128,
  /** Characters of a search query. */
  queryLength: SEARCH_QUERY_LIMITS.length,
  /** Distinct words of a search query. */
  queryWords: SEARCH_QUERY_LIMITS.words,
} as const;

/**
 * How the stored keywords were split, kept for people reading the data: a resync decides on the
 * words themselves (store/entry-store.ts), not on this number.
 */
export const KEYWORDS_VERSION = SEARCH_WORDS_VERSION;

/** The distinct keywords of some text, in order of first appearance. */
export function keywordsOf(...texts: (string | undefined)[]): string[] {
  return searchWords(texts, {
    maxLength: KEYWORD_LIMITS.keywordLength,
    maxWords: KEYWORD_LIMITS.keywordsPerEntry,
  });
}

/** The sort key of a name: case-insensitive (and accent-insensitive) ascending order. */
export function nameKeyOf(name: string): string {
  return foldAccents(name);
}
