/**
 * The Unicode script of a character (the `Script` property, UAX #24), from the regular
 * expression property escapes built into JavaScript (`\p{Script=Latin}`): the data is the
 * runtime's own ICU, so it follows Node's Unicode version and needs no table of ours. JavaScript
 * can test a character against a script but not name its script, hence one expression that tries
 * every script and tells which one matched.
 */

/**
 * Every script of Unicode 17, the most frequent first (the expression tries them in order). A name
 * this runtime does not know (an older Node) is left out; its characters then have no script
 * here and count as `Unknown`.
 */
const SCRIPT_NAMES = [
  "Common",
  "Inherited",
  "Latin",
  "Cyrillic",
  "Greek",
  "Han",
  "Hiragana",
  "Katakana",
  "Hangul",
  "Arabic",
  "Hebrew",
  "Devanagari",
  "Thai",
  "Adlam",
  "Ahom",
  "Anatolian_Hieroglyphs",
  "Armenian",
  "Avestan",
  "Balinese",
  "Bamum",
  "Bassa_Vah",
  "Batak",
  "Bengali",
  "Beria_Erfe",
  "Bhaiksuki",
  "Bopomofo",
  "Brahmi",
  "Braille",
  "Buginese",
  "Buhid",
  "Canadian_Aboriginal",
  "Carian",
  "Caucasian_Albanian",
  "Chakma",
  "Cham",
  "Cherokee",
  "Chorasmian",
  "Coptic",
  "Cuneiform",
  "Cypriot",
  "Cypro_Minoan",
  "Deseret",
  "Dives_Akuru",
  "Dogra",
  "Duployan",
  "Egyptian_Hieroglyphs",
  "Elbasan",
  "Elymaic",
  "Ethiopic",
  "Garay",
  "Georgian",
  "Glagolitic",
  "Gothic",
  "Grantha",
  "Gujarati",
  "Gunjala_Gondi",
  "Gurmukhi",
  "Gurung_Khema",
  "Hanifi_Rohingya",
  "Hanunoo",
  "Hatran",
  "Imperial_Aramaic",
  "Inscriptional_Pahlavi",
  "Inscriptional_Parthian",
  "Javanese",
  "Kaithi",
  "Kannada",
  "Kawi",
  "Kayah_Li",
  "Kharoshthi",
  "Khitan_Small_Script",
  "Khmer",
  "Khojki",
  "Khudawadi",
  "Kirat_Rai",
  "Lao",
  "Lepcha",
  "Limbu",
  "Linear_A",
  "Linear_B",
  "Lisu",
  "Lycian",
  "Lydian",
  "Mahajani",
  "Makasar",
  "Malayalam",
  "Mandaic",
  "Manichaean",
  "Marchen",
  "Masaram_Gondi",
  "Medefaidrin",
  "Meetei_Mayek",
  "Mende_Kikakui",
  "Meroitic_Cursive",
  "Meroitic_Hieroglyphs",
  "Miao",
  "Modi",
  "Mongolian",
  "Mro",
  "Multani",
  "Myanmar",
  "Nabataean",
  "Nag_Mundari",
  "Nandinagari",
  "New_Tai_Lue",
  "Newa",
  "Nko",
  "Nushu",
  "Nyiakeng_Puachue_Hmong",
  "Ogham",
  "Ol_Chiki",
  "Ol_Onal",
  "Old_Hungarian",
  "Old_Italic",
  "Old_North_Arabian",
  "Old_Permic",
  "Old_Persian",
  "Old_Sogdian",
  "Old_South_Arabian",
  "Old_Turkic",
  "Old_Uyghur",
  "Oriya",
  "Osage",
  "Osmanya",
  "Pahawh_Hmong",
  "Palmyrene",
  "Pau_Cin_Hau",
  "Phags_Pa",
  "Phoenician",
  "Psalter_Pahlavi",
  "Rejang",
  "Runic",
  "Samaritan",
  "Saurashtra",
  "Sharada",
  "Shavian",
  "Siddham",
  "Sidetic",
  "SignWriting",
  "Sinhala",
  "Sogdian",
  "Sora_Sompeng",
  "Soyombo",
  "Sundanese",
  "Sunuwar",
  "Syloti_Nagri",
  "Syriac",
  "Tagalog",
  "Tagbanwa",
  "Tai_Le",
  "Tai_Tham",
  "Tai_Viet",
  "Tai_Yo",
  "Takri",
  "Tamil",
  "Tangsa",
  "Tangut",
  "Telugu",
  "Thaana",
  "Tibetan",
  "Tifinagh",
  "Tirhuta",
  "Todhri",
  "Tolong_Siki",
  "Toto",
  "Tulu_Tigalari",
  "Ugaritic",
  "Vai",
  "Vithkuqi",
  "Wancho",
  "Warang_Citi",
  "Yezidi",
  "Yi",
  "Zanabazar_Square",
] as const;

function knownToRuntime(script: string): boolean {
  try {
    new RegExp(`\\p{Script=${script}}`, "u");
    return true;
  } catch {
    return false;
  }
}

const SCRIPTS: readonly string[] = SCRIPT_NAMES.filter(knownToRuntime);

/** One group per script, so the index of the group that matched names the script. */
const ANY_SCRIPT = new RegExp(SCRIPTS.map((script) => `(\\p{Script=${script}})`).join("|"), "u");

/**
 * The script of `character` (one code point): `Common` for characters shared by all (digits,
 * punctuation, emoji), `Inherited` for marks that take their base's, `Unknown` when unassigned
 * (or assigned by a Unicode newer than this list).
 */
export function scriptOf(character: string): string {
  const match = ANY_SCRIPT.exec(character);
  if (match) {
    for (let group = 1; group < match.length; group += 1) {
      if (match[group] !== undefined) return SCRIPTS[group - 1];
    }
  }
  return "Unknown";
}

/** A script shared by the others (digits, punctuation) or taken from the base (marks). */
export function isSharedScript(script: string): boolean {
  return script === "Common" || script === "Inherited";
}

/** `Old_Italic` -> `Old Italic`, for messages. */
export function scriptLabel(script: string): string {
  return script.replaceAll("_", " ");
}
