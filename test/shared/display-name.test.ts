/**
 * The rules that keep a display name from passing for another (UTS #39 / UAX #31), as pure
 * functions: one row per way of disguising a name found in the public catalogue, each invisible
 * or default ignorable code point by name, and ordinary names in many scripts that must pass.
 * The refusal through the API, and the comparison with other projects' public names, are in
 * test/security/names-and-archives.test.ts.
 */

import {
  confusableSkeleton,
  displayNameIssue,
  MAX_STACKED_MARKS,
  type NameProblem,
  nameFinding,
  normalizeName,
  scriptOf,
} from "@movement-detection/shared/text";
import { expect } from "chai";

const LENGTH = { minLength: 1, maxLength: 120 };

/** What the API would answer: the problem, "length" for a length error, or "ok". */
function verdict(name: string): NameProblem | "length" | "ok" {
  const issue = displayNameIssue(name, LENGTH);
  if (!issue) return "ok";
  return issue.problem ?? "length";
}

/** The tag characters spelling `text` (U+E0020-U+E007E): text no one sees. */
const tags = (text: string) =>
  [...text].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join("");

describe("display names that could pass for others", () => {
  describe("invisible and default ignorable code points are refused, each by name", () => {
    const rows: readonly [string, string, string][] = [
      ["U+200B ZERO WIDTH SPACE", "Squat\u200BPro", "U+200B ZERO WIDTH SPACE"],
      ["U+200C ZERO WIDTH NON-JOINER", "Squat\u200CPro", "U+200C ZERO WIDTH NON-JOINER"],
      ["U+200D ZERO WIDTH JOINER", "Squat\u200DPro", "U+200D ZERO WIDTH JOINER"],
      ["U+2060 WORD JOINER", "Squat\u2060Pro", "U+2060 WORD JOINER"],
      ["U+FEFF BOM inside", "Squat\uFEFFPro", "U+FEFF ZERO WIDTH NO-BREAK SPACE (BOM)"],
      ["U+00AD SOFT HYPHEN", "Squ\u00ADat Pro", "U+00AD SOFT HYPHEN"],
      ["U+034F COMBINING GRAPHEME JOINER", "Squa\u034Ft Pro", "U+034F COMBINING GRAPHEME JOINER"],
      ["U+2062 INVISIBLE TIMES", "Squat\u2062Pro", "U+2062 INVISIBLE TIMES"],
      ["U+180E MONGOLIAN VOWEL SEPARATOR", "Squat\u180EPro", "U+180E MONGOLIAN VOWEL SEPARATOR"],
      ["U+2028 LINE SEPARATOR", "Squat\u2028Pro", "U+2028 LINE SEPARATOR"],
      ["U+2029 PARAGRAPH SEPARATOR", "Squat\u2029Pro", "U+2029 PARAGRAPH SEPARATOR"],
      ["U+115F HANGUL CHOSEONG FILLER", "\u115FSquat Pro", "U+115F HANGUL CHOSEONG FILLER"],
      ["U+1160 HANGUL JUNGSEONG FILLER", "Squat\u1160Pro", "U+1160 HANGUL JUNGSEONG FILLER"],
      // NFKC turns both into U+1160, which is refused by that name.
      ["U+3164 HANGUL FILLER", "Squat\u3164Pro", "U+1160 HANGUL JUNGSEONG FILLER"],
      ["U+FFA0 HALFWIDTH HANGUL FILLER", "Squat\uFFA0Pro", "U+1160 HANGUL JUNGSEONG FILLER"],
      ["U+2800 BRAILLE PATTERN BLANK", "Squat\u2800Pro", "U+2800 BRAILLE PATTERN BLANK"],
      ["tag characters after a name (hidden text)", `Squat Pro${tags("evil")}`, "U+E0065"],
      ["U+E0001 LANGUAGE TAG", "Squat Pro\u{E0001}", "U+E0001"],
      [
        "tags hiding text in a flag that is no real one",
        `\u{1F3F4}${tags("hidden")}\u{E007F} Squat`,
        "U+E0068",
      ],
      ["U+FE00 VARIATION SELECTOR-1 after a letter", "Squat\uFE00 Pro", "U+FE00"],
      ["U+FE0F after a letter (no emoji)", "Squat\uFE0F Pro", "U+FE0F"],
      ["U+E0100 VARIATION SELECTOR-17 after a letter", "Squat\u{E0100} Pro", "U+E0100"],
      [
        "U+200D between two Latin letters after a mark",
        "Squa\u0301\u200Dt",
        "U+200D ZERO WIDTH JOINER",
      ],
      ["U+200C between Arabic and Latin", "\u0633\u200Cx", "U+200C ZERO WIDTH NON-JOINER"],
    ];
    for (const [what, name, label] of rows) {
      it(`${what}: invisible_character naming ${label}`, () => {
        const issue = displayNameIssue(name, LENGTH);
        expect(issue?.problem, JSON.stringify(issue)).to.equal("invisible_character");
        expect(issue?.message).to.equal(`holds an invisible character (${label})`);
      });
    }

    it("bidirectional controls keep their own problem, checked first", () => {
      for (const control of ["\u200E", "\u200F", "\u061C", "\u202E", "\u2066", "\u2069"]) {
        expect(verdict(`Squat${control}Pro`)).to.equal("bidi_control");
      }
    });

    it("a BOM or no-break space at an end is trimmed away, not refused", () => {
      expect(normalizeName("\uFEFFSquat Pro\u00A0")).to.equal("Squat Pro");
      expect(verdict("\uFEFFSquat Pro")).to.equal("ok");
    });

    it("unassigned and private use code points are refused", () => {
      expect(verdict("Squat\u0378")).to.equal("unknown_character");
      expect(verdict("Squat\uE000")).to.equal("unknown_character");
      expect(verdict("Squat\u{F0000}")).to.equal("unknown_character");
      expect(displayNameIssue("Squat\uFDD0", LENGTH)?.message).to.equal(
        "holds an unassigned or private use character (U+FDD0)",
      );
    });
  });

  describe("the invisible characters a script or an emoji needs, where it needs them", () => {
    const rows: readonly [string, string][] = [
      ["Persian with a zero width non-joiner", "\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645"],
      ["a Devanagari conjunct with a zero width joiner", "\u0915\u094D\u200D\u0937"],
      ["a Malayalam chillu with a zero width joiner", "\u0D28\u0D4D\u200D\u0D28"],
      ["an emoji ZWJ sequence", "\u{1F469}\u200D\u{1F4BB} Coding"],
      ["an emoji ZWJ sequence with a skin tone", "\u{1F3CB}\u{1F3FD}\u200D\u2640\uFE0F Lift"],
      ["an emoji presentation selector", "Squat \u{1F3CB}\uFE0F"],
      ["a keycap", "1\uFE0F\u20E3 Squat"],
      ["the flag of Scotland (tags)", `Scotland \u{1F3F4}${tags("gbsct")}\u{E007F}`],
      [
        "the flag of Wales (tags)",
        `\u{1F3F4}${tags("gbwls")}\u{E007F}\u{1F3F4}${tags("gbeng")}\u{E007F}`,
      ],
      ["an ideographic variation sequence", "\u845B\u{E0100}\u57CE"],
      ["a Mongolian free variation selector", "\u1820\u180B\u1821"],
    ];
    for (const [what, name] of rows) {
      it(`accepts ${what}`, () => {
        expect(displayNameIssue(name, LENGTH)).to.equal(undefined);
      });
    }
  });

  describe("stacked combining marks", () => {
    it(`accepts ${MAX_STACKED_MARKS} different marks on one letter, refuses ${MAX_STACKED_MARKS + 1}`, () => {
      const marks = ["\u0301", "\u0302", "\u0303", "\u0304", "\u0306"];
      expect(verdict(`Squa${marks.slice(0, MAX_STACKED_MARKS).join("")}t`)).to.equal("ok");
      expect(verdict(`Squa${marks.slice(0, MAX_STACKED_MARKS + 1).join("")}t`)).to.equal(
        "stacked_marks",
      );
    });

    it("refuses 100 stacked accents, and one accent twice", () => {
      expect(verdict(`Squat${"\u0301".repeat(100)} Pro`)).to.equal("stacked_marks");
      expect(verdict("Squa\u0301\u0301t")).to.equal("stacked_marks");
    });

    it("counts marks after decomposition (a precomposed letter's accent is one of them)", () => {
      // é + 4 marks is 5 marks on "e" once decomposed.
      expect(verdict("Caf\u00E9\u0302\u0303\u0304\u0306")).to.equal("stacked_marks");
      expect(verdict("Caf\u00E9\u0302\u0303\u0304")).to.equal("ok");
    });

    it("names made of marks only keep their own problem", () => {
      expect(verdict("\u0301\u0302")).to.equal("no_base_character");
    });
  });

  describe("mixed scripts (UTS #39, moderately restrictive)", () => {
    const refused: readonly [string, string, NameProblem][] = [
      ["a Cyrillic S in Squat", "\u0405quat Pro", "mixed_scripts"],
      ["a Cyrillic а in Squat", "Squ\u0430t Pro", "mixed_scripts"],
      ["a Greek omicron in Pro", "Squat Pr\u03BF", "mixed_scripts"],
      [
        "Cyrillic and Latin words side by side",
        "\u041F\u0440\u0438\u0441\u0435\u0434 Pro",
        "mixed_scripts",
      ],
      ["Latin, Arabic and Hebrew", "Squat \u0633\u0643 \u05E1\u05E7", "mixed_scripts"],
      ["Latin and Cherokee (not a recommended script)", "\u13DAquat", "mixed_scripts"],
      ["an Armenian Տ inside a Latin word", "\u054Fquat Pro", "mixed_script_confusable"],
      ["an Arabic alef inside a Latin word", "Pu\u0627l-up", "mixed_script_confusable"],
      ["an Arabic-Indic five inside a Latin word", "Squat Pr\u0665", "mixed_script_confusable"],
    ];
    for (const [what, name, problem] of refused) {
      it(`refuses ${what}: ${problem}`, () => {
        expect(verdict(name)).to.equal(problem);
      });
    }

    it("says which scripts, and which letter looks like which", () => {
      expect(displayNameIssue("\u0405quat Pro", LENGTH)?.message).to.match(
        /^mixes the scripts Cyrillic, Latin /,
      );
      expect(displayNameIssue("\u054Fquat", LENGTH)?.message).to.equal(
        'mixes Latin with Armenian in the word "\u054Fquat", where "\u054F" looks like the Latin "S"',
      );
    });
  });

  describe("fullwidth and other compatibility forms", () => {
    it("are stored as the plain letters they stand for (NFKC), so they disguise nothing", () => {
      for (const [name, plain] of [
        ["\uFF33\uFF51\uFF55\uFF41\uFF54 \uFF30\uFF52\uFF4F", "Squat Pro"],
        ["\uFF33quat Pro", "Squat Pro"],
        ["\u{1D412}\u{1D42A}\u{1D42E}\u{1D41A}\u{1D42D}", "Squat"],
        ["\uFB01tness", "fitness"],
        ["\uFF7D\uFF78\uFF9C\uFF6F\uFF84", "\u30B9\u30AF\u30EF\u30C3\u30C8"],
      ]) {
        expect(normalizeName(name)).to.equal(plain);
        expect(verdict(name)).to.equal("ok");
        expect(confusableSkeleton(normalizeName(name))).to.equal(confusableSkeleton(plain));
      }
    });

    it("the length is counted after normalization", () => {
      // U+FDFA is one code point that NFKC writes as 18.
      expect(verdict("\uFDFA".repeat(6))).to.equal("ok");
      expect(verdict("\uFDFA".repeat(7))).to.equal("length");
    });
  });

  describe("confusable skeletons: what a public name is compared with", () => {
    const alike: readonly [string, string, string][] = [
      ["a whole-Cyrillic look-alike", "\u0421\u041E\u041C\u0412\u041E", "COMBO"],
      ["a Cyrillic S", "\u0405quat Pro", "Squat Pro"],
      ["one, capital I and small L", "Drill 1", "Drill l"],
      ["capital I and small L", "Drill I", "Drill l"],
      ["m and r n", "Arm curl", "Arrn curl"],
      ["a zero width space", "Squat\u200B Pro", "Squat Pro"],
      ["tags", `Squat Pro${tags("x")}`, "Squat Pro"],
      ["a double space", "Squat  Pro", "Squat Pro"],
      ["a Cyrillic а", "Squ\u0430t", "Squat"],
      ["an Armenian Տ", "\u054Fquat", "Squat"],
    ];
    for (const [what, one, other] of alike) {
      it(`${JSON.stringify(one)} looks like ${JSON.stringify(other)} (${what})`, () => {
        expect(confusableSkeleton(one)).to.equal(confusableSkeleton(other));
      });
    }

    it("names that differ to the eye differ", () => {
      expect(confusableSkeleton("Squat Pro")).to.not.equal(confusableSkeleton("Squat Pr0"));
      expect(confusableSkeleton("Squat")).to.not.equal(confusableSkeleton("squat"));
      expect(confusableSkeleton("Squat")).to.not.equal(confusableSkeleton("Squats"));
    });
  });

  describe("ordinary names in many scripts are accepted as they are", () => {
    const names: readonly [string, string][] = [
      ["Latin", "Squat Pro"],
      ["accents", "Caf\u00E9 cr\u00E8me"],
      ["Vietnamese (two marks on a letter)", "Ti\u1EBFng Vi\u1EC7t"],
      ["German", "Kniebeuge f\u00FCr Gro\u00DFe"],
      ["Czech", "\u017Dab\u00ED skok"],
      ["Nordic", "\u00D8velse \u00C5 \u00C6"],
      ["Chinese", "\u6DF1\u8E72"],
      ["Chinese and Latin", "\u6DF1\u8E72 Squat"],
      ["Japanese kana and Latin", "\u30B9\u30AF\u30EF\u30C3\u30C8 Pro"],
      ["Japanese kanji and kana", "\u7B4B\u529B\u30C8\u30EC\u30FC\u30CB\u30F3\u30B0"],
      ["Korean and Latin", "\uC2A4\uCFFC\uD2B8 Pro"],
      ["Arabic", "\u0627\u0644\u0642\u0631\u0641\u0635\u0627\u0621"],
      ["Arabic and Latin", "Squat \u0633\u0643\u0648\u0627\u062A"],
      ["Hebrew", "\u05E1\u05E7\u05D5\u05D5\u05D0\u05D8"],
      [
        "Cyrillic alone",
        "\u041F\u0440\u0438\u0441\u0435\u0434\u0430\u043D\u0438\u044F \u0441\u043E \u0448\u0442\u0430\u043D\u0433\u043E\u0439",
      ],
      ["Greek alone", "\u039A\u03B1\u03B8\u03AF\u03C3\u03BC\u03B1\u03C4\u03B1"],
      ["Devanagari", "\u0938\u094D\u0915\u094D\u0935\u093E\u091F"],
      ["Devanagari and Latin", "\u0938\u094D\u0915\u094D\u0935\u093E\u091F Pro"],
      ["Thai", "\u0E2A\u0E04\u0E27\u0E2D\u0E17"],
      ["Georgian", "\u10D1\u10DE\u10E3\u10D1\u10DA\u10D8"],
      ["Armenian alone", "\u053E\u0561\u0576\u0580\u0561\u0574\u0561\u0580\u057F"],
      ["digits and punctuation", "Squat 3x10 (90\u00B0) \u2013 v2"],
      ["an emoji", "Squat \u{1F3CB}\uFE0F"],
    ];
    for (const [what, name] of names) {
      it(`${what}: ${name}`, () => {
        expect(nameFinding(name)).to.equal(undefined);
        expect(displayNameIssue(name, LENGTH)).to.equal(undefined);
        expect(normalizeName(name)).to.equal(name);
      });
    }
  });

  it("knows the script of every letter of this runtime's Unicode", () => {
    const unknown: string[] = [];
    for (let code = 0; code <= 0x10ffff; code += 1) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const character = String.fromCodePoint(code);
      if (/\p{L}/u.test(character) && scriptOf(character) === "Unknown") {
        unknown.push(code.toString(16));
      }
    }
    expect(
      unknown,
      "letters without a script: a script missing from unicode-scripts.ts",
    ).to.deep.equal([]);
  });
});
