/**
 * Search words: the catalogue stores the keywords of each entry's name and description in an
 * array with a multikey index, and a search asks for entries holding all the keywords of `q`
 * (`$all`). No `$text`, no Atlas Search: the same query behaves the same on the embedded store and
 * on MongoDB. Keywords ignore case and accents ("Squat" = "squat", "Élan" = "elan") and split on
 * anything that is not a letter or a digit.
 */
export const KEYWORD_LIMITS = {
  /** Characters kept of one keyword (longer words are cut, in entries and queries alike). */
  keywordLength: 32,
  /** Distinct keywords stored per entry (the name's first, then the description's). */
  keywordsPerEntry: 128,
  /** Characters of a search query. */
  queryLength: 256,
  /** Distinct words of a search query. */
  queryWords: 16,
} as const;

const DIACRITICS = /\p{M}+/gu;
const SEPARATORS = /[^\p{L}\p{N}]+/u;

/** The distinct keywords of some text, in order of first appearance. */
export function keywordsOf(...texts: (string | undefined)[]): string[] {
  const words = new Set<string>();
  for (const text of texts) {
    if (!text) continue;
    for (const raw of text
      .normalize("NFKD")
      .replace(DIACRITICS, "")
      .toLowerCase()
      .split(SEPARATORS)) {
      if (raw === "") continue;
      words.add(raw.slice(0, KEYWORD_LIMITS.keywordLength));
      if (words.size >= KEYWORD_LIMITS.keywordsPerEntry) return [...words];
    }
  }
  return [...words];
}

/** The sort key of a name: case-insensitive (and accent-insensitive) ascending order. */
export function nameKeyOf(name: string): string {
  return name.normalize("NFKD").replace(DIACRITICS, "").toLowerCase();
}
