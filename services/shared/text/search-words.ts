/**
 * The words of text for the public catalogue's search, one definition for both sides: the
 * catalogue indexes entries with it and reads `q` with it, and the gateway counts the words of `q`
 * with it (the limit below), so an entry and a query of the same text always agree.
 *
 * Words ignore case and accents ("Squat" = "squat", "Élan" = "elan"). Text is first cut at the
 * word boundaries of Unicode (UAX #29, `Intl.Segmenter`), which also splits scripts written
 * without spaces (Chinese, Japanese, Thai) with ICU's dictionaries; each piece is then split on
 * anything that is not a letter, a combining mark or a digit, so Latin text gives the same words
 * it always did ("don't" is "don" and "t", "squat_drill" is "squat" and "drill").
 */

/**
 * Bumped whenever the words of some text change (a different splitting). Stored with each
 * catalogue entry for people reading the data; a resync re-splits an entry when its stored
 * words differ from what this code makes of its text, whatever version they carry
 * (docs/movespecs.md, "Search").
 * Version 1 (never stored: the field's absence) split on non letters/digits only; version 2 also
 * at Unicode word boundaries, and took every combining mark away (kana voicing, Indic and Thai
 * vowel signs: other words); version 3 takes away only accents; version 4 also the vowel points
 * of Hebrew and Arabic, and emoji variation selectors (which version 3 kept as words).
 */
export const SEARCH_WORDS_VERSION = 4;

/** Characters kept of one word (longer words are cut, in entries and queries alike). */
export const SEARCH_WORD_LENGTH = 32;

export const SEARCH_QUERY_LIMITS = {
  /** Characters of a search query. */
  length: 256,
  /** Distinct words of a search query. */
  words: 16,
} as const;

/**
 * What searching ignores: the combining diacritical marks of Latin, Greek and Cyrillic (é, ñ, ö,
 * ệ); the vowel points and cantillation of Hebrew and the harakat of Arabic, which writers mostly
 * leave out (שָׁלוֹם is שלום); variation selectors (the emoji presentation of ❤️). Every other
 * combining mark is part of its word: Japanese voicing (ク and グ are different sounds), the vowel
 * signs of Devanagari or Thai (किताब without them is another word).
 */
const IGNORED_MARKS = new RegExp(
  [
    "[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]",
    "[\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7]",
    "[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed]",
    "[\ufe00-\ufe0f]|[\u{e0100}-\u{e01ef}]",
  ].join("|"),
  "gu",
);
const SEPARATORS = /[^\p{L}\p{M}\p{N}]+/u;

/** Text without its accents, composed again (NFC), lower case: "Élan" is "elan", グ stays グ. */
export function foldAccents(text: string): string {
  return text.normalize("NFKD").replace(IGNORED_MARKS, "").normalize("NFC").toLowerCase();
}
// A fixed locale: the words must not depend on the LANG of the process that splits them (the
// gateway and the catalogue may differ), and ICU's dictionaries apply whatever the locale.
const SEGMENTER = new Intl.Segmenter("und", { granularity: "word" });

/**
 * The distinct words of some texts, in order of first appearance, each cut to `maxLength`
 * characters, at most `maxWords` of them.
 */
export function searchWords(
  texts: readonly (string | undefined)[],
  limits: { maxLength: number; maxWords: number },
): string[] {
  const words = new Set<string>();
  for (const text of texts) {
    if (!text) continue;
    // NFKC first: the dictionaries see one form of a word however it was typed (half-width
    // katakana, composed or decomposed kana).
    for (const { segment } of SEGMENTER.segment(text.normalize("NFKC"))) {
      for (const raw of foldAccents(segment).split(SEPARATORS)) {
        if (raw === "") continue;
        words.add(raw.slice(0, limits.maxLength));
        if (words.size >= limits.maxWords) return [...words];
      }
    }
  }
  return [...words];
}
