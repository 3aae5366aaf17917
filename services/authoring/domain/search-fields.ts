import {
  foldAccents,
  SEARCH_WORD_LENGTH,
  SEARCH_WORDS_VERSION,
  searchWords,
} from "@movement-detection/shared/text";

/**
 * What a MoveSpec stores to be searched and sorted in its project's listing
 * (ListProjectMoveSpecs): the words of its name and description as the public catalogue splits
 * them (services/shared/text/search-words.ts, so that a query finds the same MoveSpecs in both
 * listings), and its name folded for the case-insensitive sort.
 */
export interface SearchFields {
  readonly search_words: string[];
  /** Which splitting made `search_words` (SEARCH_WORDS_VERSION): the start-up backfill redoes older ones. */
  readonly search_words_version: number;
  readonly name_key: string;
}

/** Distinct words stored per MoveSpec (the name's first, then the description's), as the catalogue. */
export const SEARCH_WORDS_PER_MOVESPEC = 128;

export function searchFieldsOf(name: string, description: string | undefined): SearchFields {
  return {
    search_words: searchWords([name, description], {
      maxLength: SEARCH_WORD_LENGTH,
      maxWords: SEARCH_WORDS_PER_MOVESPEC,
    }),
    search_words_version: SEARCH_WORDS_VERSION,
    name_key: foldAccents(name),
  };
}

/** The words of a search query (at most `maxWords`: the gateway refuses more before this). */
export function queryWords(q: string, maxWords: number): string[] {
  return searchWords([q], { maxLength: SEARCH_WORD_LENGTH, maxWords });
}
