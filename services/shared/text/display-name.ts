/**
 * Names people read (MoveSpecs in the public catalogue, organizations, projects, keys) must not be
 * able to pass for something else: they are stored in Unicode normal form C (so "é" typed two ways
 * is one name), and refused when they hold a lone surrogate (not text at all: protobuf would store
 * U+FFFD), a bidirectional control (U+202E turns "gpj.exe" around: look-alike entries), a control
 * character, or nothing but combining marks (a name that renders as nothing, or as a smudge).
 */
export type NameProblem =
  | "lone_surrogate"
  | "bidi_control"
  | "control_character"
  | "no_base_character";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** ALM, LRM, RLM, the embeddings and overrides, the isolates. */
const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const ONLY_MARKS = /^[\p{M}\s]+$/u;

/** True when `value` is not well-formed UTF-16 (a lone surrogate cannot be encoded as UTF-8). */
export function hasLoneSurrogate(value: string): boolean {
  return LONE_SURROGATE.test(value);
}

/** Why `name` (already trimmed and normalized) is refused, or undefined when it is fine. */
export function nameProblem(name: string): NameProblem | undefined {
  if (hasLoneSurrogate(name)) return "lone_surrogate";
  if (BIDI_CONTROL.test(name)) return "bidi_control";
  if (CONTROL.test(name)) return "control_character";
  if (name !== "" && ONLY_MARKS.test(name)) return "no_base_character";
  return undefined;
}

/** Trimmed and in normal form C (a lone surrogate is left as it is, for nameProblem to see). */
export function normalizeName(name: string): string {
  const trimmed = name.trim();
  return hasLoneSurrogate(trimmed) ? trimmed : trimmed.normalize("NFC");
}

/** Bounds of a display name, in code points after trimming and normalization. */
export interface NameLength {
  readonly minLength: number;
  readonly maxLength: number;
}

/**
 * What is wrong with `name` as a display name (trimmed, in normal form C, between the bounds), as
 * the end of a sentence starting with the field's name, with the problem's name (`details.problem`)
 * when it is a character's; undefined when it is fine.
 */
export function displayNameIssue(
  name: string,
  length: NameLength,
): { readonly message: string; readonly problem?: NameProblem } | undefined {
  const normalized = normalizeName(name);
  const problem = nameProblem(normalized);
  if (problem) return { message: NAME_PROBLEM_MESSAGES[problem], problem };
  const characters = [...normalized].length;
  if (characters < length.minLength || characters > length.maxLength) {
    return {
      message: `must be ${length.minLength} to ${length.maxLength} characters without control characters`,
    };
  }
  return undefined;
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

export const NAME_PROBLEM_MESSAGES: Readonly<Record<NameProblem, string>> = {
  lone_surrogate: "holds a lone surrogate (not valid Unicode text)",
  bidi_control: "holds a bidirectional control character (U+200E, U+202A-U+202E, U+2066-U+2069...)",
  control_character: "holds a control character",
  no_base_character: "is made of combining marks only",
};
