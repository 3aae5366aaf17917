/**
 * Confusable skeletons (Unicode UTS #39, section 4): two strings that look alike have the same
 * skeleton ("Squat" with a Cyrillic "S", "Squat" with a zero width space, "ЅԛսаТ"...). A skeleton
 * is for comparing, never for showing ("m" becomes "rn").
 *
 * The data is UTS #39's confusables.txt (Unicode 13.0) as the npm package `unhomoglyph` ships it
 * (a JSON map from one code point to its prototype): it is read from the package, never fetched.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

let prototypes: ReadonlyMap<string, string> | undefined;

/** The map, read on first use (the gateway, which checks names, rarely needs it). */
function prototypeMap(): ReadonlyMap<string, string> {
  if (!prototypes) {
    const data = require("unhomoglyph/data.json") as Record<string, string>;
    prototypes = new Map(Object.entries(data));
  }
  return prototypes;
}

/** What `character` (one code point) looks like (itself when it is its own prototype). */
export function prototypeOf(character: string): string {
  return prototypeMap().get(character) ?? character;
}

const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/u;
const WHITE_SPACE_RUN = /\s+/gu;

/**
 * The skeleton of UTS #39: normal form D, default ignorable code points removed, each code point
 * replaced by its prototype, normal form D again. Runs of white space then count as one space and
 * the ends are trimmed ("Squat  Pro" looks like "Squat Pro").
 */
export function confusableSkeleton(text: string): string {
  const map = prototypeMap();
  let mapped = "";
  for (const character of text.normalize("NFD")) {
    if (DEFAULT_IGNORABLE.test(character)) continue;
    mapped += map.get(character) ?? character;
  }
  return mapped.normalize("NFD").replace(WHITE_SPACE_RUN, " ").trim();
}

/** Bumped when `confusableSkeleton` itself changes. */
const SKELETON_ALGORITHM = 1;

/**
 * Which skeletons `confusableSkeleton` makes: its own version and the table's (the package's
 * version), so that skeletons stored before an upgrade of either are known to be stale.
 */
export function skeletonVersion(): string {
  const { version } = require("unhomoglyph/package.json") as { version: string };
  return `${SKELETON_ALGORITHM}/unhomoglyph@${version}`;
}
