/**
 * Names people read (MoveSpecs in the public catalogue, organizations, projects, keys) must not be
 * able to pass for something else. Following Unicode UTS #39 (security mechanisms) and UAX #31
 * (identifiers), a name is stored in normal form KC (fullwidth "Ｓｑｕａｔ" is "Squat", "é" typed
 * two ways is one name), and refused when it holds:
 *
 * - a lone surrogate (not text at all: protobuf would store U+FFFD);
 * - a bidirectional control (U+202E turns "gpj.exe" around) or a control character;
 * - an invisible character: a default ignorable code point, a format character, a line or
 *   paragraph separator, a Hangul filler, the blank Braille pattern, unless it is one of the few
 *   that a script or an emoji needs where it stands (see `invisibleAllowedAt`);
 * - an unassigned or private use code point (it renders as anything, or as nothing);
 * - nothing but combining marks, or more than 4 non-spacing marks on one character, or the same
 *   mark twice (UTS #39 section 5.4: "Zalgo" stacks that overflow the line, or an accent
 *   drawn darker);
 * - scripts that may not be mixed (UTS #39's "moderately restrictive" level: one script, or
 *   Latin with Chinese, Japanese or Korean, or Latin with one other recommended script but
 *   Cyrillic and Greek, whose letters pass for Latin ones);
 * - a word that mixes Latin with another script in which a letter looks like a Latin one
 *   (Armenian "Տ" in "Տquat").
 *
 * Whether a public name looks like another project's is decided where the names are, by their
 * confusable skeletons (confusables.ts; the authoring service).
 */
import { prototypeOf } from "./confusables.js";
import { isSharedScript, scriptLabel, scriptOf } from "./unicode-scripts.js";

export type NameProblem =
  | "lone_surrogate"
  | "bidi_control"
  | "control_character"
  | "invisible_character"
  | "unknown_character"
  | "no_base_character"
  | "stacked_marks"
  | "mixed_scripts"
  | "mixed_script_confusable";

/** A problem and the sentence (after the field's name) that says what is wrong, and where. */
export interface NameFinding {
  readonly problem: NameProblem;
  readonly message: string;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** ALM, LRM, RLM, the embeddings and overrides, the isolates. */
const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const ONLY_MARKS = /^[\p{M}\s]+$/u;
/**
 * Characters that show nothing, or nothing of themselves: default ignorable code points (zero
 * width space and joiners, word joiner, BOM, soft hyphen, variation selectors, tags, Hangul
 * fillers...), other format characters, line and paragraph separators, and U+2800 (the blank
 * Braille pattern, a visible character by its properties that draws nothing).
 */
const INVISIBLE_ALL = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Zl}\p{Zp}\u2800]/gu;
const UNKNOWN = /[\p{Cn}\p{Co}]/u;
const NONSPACING_MARK = /[\p{Mn}\p{Me}]/u;
const MARK = /\p{M}/u;
const LETTER = /\p{L}/u;
const WORD = /[\p{L}\p{M}\p{Nd}]+/gu;

/** UTS #39 section 5.4: more non-spacing marks than this on one character are refused. */
export const MAX_STACKED_MARKS = 4;

/** True when `value` is not well-formed UTF-16 (a lone surrogate cannot be encoded as UTF-8). */
export function hasLoneSurrogate(value: string): boolean {
  return LONE_SURROGATE.test(value);
}

/** Trimmed and in normal form KC (a lone surrogate is left as it is, for nameProblem to see). */
export function normalizeName(name: string): string {
  const trimmed = name.trim();
  return hasLoneSurrogate(trimmed) ? trimmed : trimmed.normalize("NFKC").trim();
}

/**
 * What is wrong with the characters of `name` (already normalized) one by one: linear in its
 * length, so it is safe before any length check.
 */
export function characterFinding(name: string): NameFinding | undefined {
  if (hasLoneSurrogate(name)) return finding("lone_surrogate");
  if (BIDI_CONTROL.test(name)) return finding("bidi_control");
  if (CONTROL.test(name)) return finding("control_character");
  for (const match of name.matchAll(INVISIBLE_ALL)) {
    if (!invisibleAllowedAt(name, match.index, match[0])) {
      return {
        problem: "invisible_character",
        message: `holds an invisible character (${codePointLabel(match[0])})`,
      };
    }
  }
  const unknown = UNKNOWN.exec(name);
  if (unknown) {
    return {
      problem: "unknown_character",
      message: `holds an unassigned or private use character (${codePointLabel(unknown[0])})`,
    };
  }
  if (name !== "" && ONLY_MARKS.test(name)) return finding("no_base_character");
  return stackedMarks(name);
}

/**
 * What is wrong with the scripts of `name` (already normalized and within its length: this looks
 * up each character's script, about a microsecond each).
 */
export function scriptFinding(name: string): NameFinding | undefined {
  const characters = [...name];
  const scripts = new Set(characters.map(scriptOf).filter((script) => !isSharedScript(script)));
  if (!mixAllowed(scripts)) {
    return {
      problem: "mixed_scripts",
      message: `mixes the scripts ${[...scripts].map(scriptLabel).join(", ")} (one script, or Latin with one other but Cyrillic or Greek, or Latin with Chinese, Japanese or Korean)`,
    };
  }
  if (scripts.size < 2 || !scripts.has("Latin")) return undefined;
  for (const [word] of name.matchAll(WORD)) {
    const lookalike = latinLookalike([...word]);
    if (lookalike) {
      return {
        problem: "mixed_script_confusable",
        message: `mixes Latin with ${scriptLabel(scriptOf(lookalike))} in the word "${word}", where "${lookalike}" looks like the Latin "${prototypeOf(lookalike)}"`,
      };
    }
  }
  return undefined;
}

/** Every rule but the length: what is wrong with `name` (already trimmed and normalized). */
export function nameFinding(name: string): NameFinding | undefined {
  return characterFinding(name) ?? scriptFinding(name);
}

/** Why `name` (already trimmed and normalized) is refused, or undefined when it is fine. */
export function nameProblem(name: string): NameProblem | undefined {
  return nameFinding(name)?.problem;
}

/** Bounds of a display name, in code points after trimming and normalization. */
export interface NameLength {
  readonly minLength: number;
  readonly maxLength: number;
}

/**
 * What is wrong with `name` as a display name (trimmed, in normal form KC, between the bounds,
 * none of the problems above), as the end of a sentence starting with the field's name, with the
 * problem's name (`details.problem`) when it is a character's; undefined when it is fine. The
 * length is checked before the scripts, whose cost grows with it.
 */
export function displayNameIssue(
  name: string,
  length: NameLength,
): { readonly message: string; readonly problem?: NameProblem } | undefined {
  const normalized = normalizeName(name);
  const characterIssue = characterFinding(normalized);
  if (characterIssue) return characterIssue;
  const characters = [...normalized].length;
  if (characters < length.minLength || characters > length.maxLength) {
    return {
      message: `must be ${length.minLength} to ${length.maxLength} characters without control characters`,
    };
  }
  return scriptFinding(normalized);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point
const CONTROL_BUT_TEXT_LAYOUT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/**
 * What is wrong with free text (a description shown in the catalogue), or undefined: a lone
 * surrogate, or a control character other than tab and line breaks (a NUL, an escape sequence).
 */
export function freeTextError(text: string): string | undefined {
  if (hasLoneSurrogate(text)) return NAME_PROBLEM_MESSAGES.lone_surrogate;
  if (CONTROL_BUT_TEXT_LAYOUT.test(text)) {
    return "holds a control character (only tab and line breaks are allowed)";
  }
  return undefined;
}

/** One sentence per problem (the findings say more: which character, which scripts). */
export const NAME_PROBLEM_MESSAGES: Readonly<Record<NameProblem, string>> = {
  lone_surrogate: "holds a lone surrogate (not valid Unicode text)",
  bidi_control: "holds a bidirectional control character (U+200E, U+202A-U+202E, U+2066-U+2069...)",
  control_character: "holds a control character",
  invisible_character:
    "holds an invisible character (zero width space or joiner, word joiner, BOM, soft hyphen, tag, line separator, Hangul filler...)",
  unknown_character: "holds an unassigned or private use character",
  no_base_character: "is made of combining marks only",
  stacked_marks: `stacks more than ${MAX_STACKED_MARKS} combining marks on one character, or repeats one`,
  mixed_scripts: "mixes scripts that may not be mixed (Latin with Cyrillic or Greek, ...)",
  mixed_script_confusable:
    "mixes Latin with a letter of another script that looks like a Latin one",
};

function finding(problem: NameProblem): NameFinding {
  return { problem, message: NAME_PROBLEM_MESSAGES[problem] };
}

const NAMED_INVISIBLES: Readonly<Record<string, string>> = {
  "\u00AD": "SOFT HYPHEN",
  "\u034F": "COMBINING GRAPHEME JOINER",
  "\u115F": "HANGUL CHOSEONG FILLER",
  "\u1160": "HANGUL JUNGSEONG FILLER",
  "\u180E": "MONGOLIAN VOWEL SEPARATOR",
  "\u200B": "ZERO WIDTH SPACE",
  "\u200C": "ZERO WIDTH NON-JOINER",
  "\u200D": "ZERO WIDTH JOINER",
  "\u2028": "LINE SEPARATOR",
  "\u2029": "PARAGRAPH SEPARATOR",
  "\u2060": "WORD JOINER",
  "\u2061": "FUNCTION APPLICATION",
  "\u2062": "INVISIBLE TIMES",
  "\u2063": "INVISIBLE SEPARATOR",
  "\u2064": "INVISIBLE PLUS",
  "\u2800": "BRAILLE PATTERN BLANK",
  "\u3164": "HANGUL FILLER",
  "\uFEFF": "ZERO WIDTH NO-BREAK SPACE (BOM)",
  "\uFFA0": "HALFWIDTH HANGUL FILLER",
};

/** `U+200B ZERO WIDTH SPACE`, or `U+E0041` (a tag, a variation selector...) for the rest. */
function codePointLabel(character: string): string {
  const hex = character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
  const name = NAMED_INVISIBLES[character];
  return name ? `U+${hex} ${name}` : `U+${hex}`;
}

const ZWNJ = "\u200C";
const ZWJ = "\u200D";
/** The scripts whose words need a joiner or non-joiner to be written right (UAX #31 A1, A2, B). */
const JOINER_SCRIPTS = new Set([
  "Arabic",
  "Syriac",
  "Nko",
  "Mongolian",
  "Devanagari",
  "Bengali",
  "Gurmukhi",
  "Gujarati",
  "Oriya",
  "Tamil",
  "Telugu",
  "Kannada",
  "Malayalam",
  "Sinhala",
  "Myanmar",
  "Khmer",
]);
const EMOJI = /\p{Emoji}/u;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const EMOJI_MODIFIER = /\p{Emoji_Modifier}/u;
const EMOJI_VARIATION = /[\uFE0E\uFE0F]/u;
const IDEOGRAPHIC_VARIATION = /[\u{E0100}-\u{E01EF}]/u;
const IDEOGRAPHIC = /\p{Ideographic}/u;
const MONGOLIAN_VARIATION = /[\u180B-\u180D\u180F]/u;
const TAG = /[\u{E0000}-\u{E007F}]/u;
/** The only emoji tag sequences (RGI): the flags of England, Scotland and Wales. */
const SUBDIVISION_FLAGS = ["gbeng", "gbsct", "gbwls"].map(
  (code) =>
    `\u{1F3F4}${[...code].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join("")}\u{E007F}`,
);

/**
 * Whether the invisible character at `at` is one a script or an emoji needs there: a joiner
 * or non-joiner between two letters of a script written with them (Persian "می‌خواهم", Indic
 * conjuncts) or a joiner between two emoji (👩‍💻); an emoji's text or emoji presentation
 * selector; an ideographic variation selector after an ideograph; a Mongolian free variation
 * selector after a Mongolian letter; the tags of the flags of England, Scotland and Wales. Any
 * other invisible character is refused (in these places too, its confusable skeleton ignores it).
 */
function invisibleAllowedAt(text: string, index: number, character: string): boolean {
  const before = codePointBefore(text, index);
  const after = codePointAt(text, index + character.length);
  if (character === ZWJ && emojiJoined(before, after)) return true;
  if (character === ZWJ || character === ZWNJ) return joinsLettersOfOneScript(text, index, after);
  if (EMOJI_VARIATION.test(character)) return EMOJI.test(before) && !EMOJI_VARIATION.test(before);
  if (IDEOGRAPHIC_VARIATION.test(character)) return IDEOGRAPHIC.test(before);
  if (MONGOLIAN_VARIATION.test(character)) {
    return LETTER.test(before) && scriptOf(before) === "Mongolian";
  }
  if (TAG.test(character)) return inSubdivisionFlag(text, index);
  return false;
}

/** The code point that ends just before `index` ("" at the start). */
function codePointBefore(text: string, index: number): string {
  if (index <= 0) return "";
  const low = text.charCodeAt(index - 1);
  const start = low >= 0xdc00 && low <= 0xdfff && index >= 2 ? index - 2 : index - 1;
  return String.fromCodePoint(text.codePointAt(start)!);
}

/** The code point that starts at `index` ("" at the end). */
function codePointAt(text: string, index: number): string {
  const code = text.codePointAt(index);
  return code === undefined ? "" : String.fromCodePoint(code);
}

function emojiJoined(before: string, after: string): boolean {
  const joinable = PICTOGRAPHIC.test(before) || EMOJI_MODIFIER.test(before) || before === "\uFE0F";
  return joinable && PICTOGRAPHIC.test(after);
}

/** After a letter (and its marks: an Indic virama) and before a letter, all of one such script. */
function joinsLettersOfOneScript(text: string, index: number, after: string): boolean {
  let start = index;
  let before = codePointBefore(text, start);
  // Marks are few (at most 4 are let through), so this walk is short.
  while (before !== "" && MARK.test(before)) {
    start -= before.length;
    before = codePointBefore(text, start);
  }
  if (!LETTER.test(before) || !LETTER.test(after)) return false;
  const script = scriptOf(before);
  return JOINER_SCRIPTS.has(script) && scriptOf(after) === script;
}

/** Inside one of the subdivision flags (each 14 UTF-16 units: every code point is astral). */
function inSubdivisionFlag(text: string, index: number): boolean {
  const near = text.slice(Math.max(0, index - 12), index + 14);
  return SUBDIVISION_FLAGS.some((flag) => {
    const at = near.indexOf(flag);
    const start = Math.max(0, index - 12) + at;
    return at >= 0 && start < index && index < start + flag.length;
  });
}

/** UTS #39 section 5.4, on the decomposed name: at most 4 non-spacing marks, none repeated. */
function stackedMarks(name: string): NameFinding | undefined {
  let run = 0;
  let previous = "";
  for (const character of name.normalize("NFD")) {
    if (!NONSPACING_MARK.test(character)) {
      run = 0;
      previous = "";
      continue;
    }
    run += 1;
    if (run > MAX_STACKED_MARKS || character === previous) return finding("stacked_marks");
    previous = character;
  }
  return undefined;
}

const CHINESE_JAPANESE_KOREAN: readonly ReadonlySet<string>[] = [
  new Set(["Latin", "Han", "Hiragana", "Katakana"]),
  new Set(["Latin", "Han", "Bopomofo"]),
  new Set(["Latin", "Han", "Hangul"]),
];
/** UAX #31 table 5: the scripts in modern customary use. */
const RECOMMENDED_SCRIPTS = new Set([
  "Arabic",
  "Armenian",
  "Bengali",
  "Bopomofo",
  "Cyrillic",
  "Devanagari",
  "Ethiopic",
  "Georgian",
  "Greek",
  "Gujarati",
  "Gurmukhi",
  "Han",
  "Hangul",
  "Hebrew",
  "Hiragana",
  "Kannada",
  "Katakana",
  "Khmer",
  "Lao",
  "Latin",
  "Malayalam",
  "Myanmar",
  "Oriya",
  "Sinhala",
  "Tamil",
  "Telugu",
  "Thaana",
  "Thai",
  "Tibetan",
]);

/** UTS #39 section 5.2, "moderately restrictive". */
function mixAllowed(scripts: ReadonlySet<string>): boolean {
  if (scripts.size <= 1) return true;
  if (CHINESE_JAPANESE_KOREAN.some((set) => [...scripts].every((script) => set.has(script)))) {
    return true;
  }
  if (scripts.size !== 2 || !scripts.has("Latin")) return false;
  const [other] = [...scripts].filter((script) => script !== "Latin");
  return RECOMMENDED_SCRIPTS.has(other) && other !== "Cyrillic" && other !== "Greek";
}

/**
 * In a word holding Latin and another script, a letter or digit of the other script whose
 * prototype is Latin letters (Armenian "Տ" is "S", Arabic "ا" is "l"), or undefined.
 */
function latinLookalike(word: readonly string[]): string | undefined {
  const scripts = word.map(scriptOf);
  if (!scripts.includes("Latin")) return undefined;
  for (let at = 0; at < word.length; at += 1) {
    const script = scripts[at];
    if (script === "Latin" || isSharedScript(script)) continue;
    const prototype = [...prototypeOf(word[at])];
    const latin = prototype.filter((c) => scriptOf(c) === "Latin").length;
    if (latin > 0 && prototype.every((c) => scriptOf(c) === "Latin" || !LETTER.test(c))) {
      return word[at];
    }
  }
  return undefined;
}
