/**
 * "Did you mean" for landmark names: the words authors naturally use for body parts (hand, toe,
 * neck) mapped to the landmark pose models have, side prefixes kept (`left_hand` -> `left_wrist`),
 * and otherwise the closest valid name.
 */
import { PAIRED_LANDMARKS, parseLandmarkName, TOPOLOGIES } from "../topology.js";
import { closest } from "./reader.js";

/** Body-part words that are not landmarks, and the paired landmark that stands for them. */
const PAIRED_SYNONYMS: Readonly<Record<string, string>> = {
  hand: "wrist",
  palm: "wrist",
  fist: "wrist",
  toe: "foot_index",
  toes: "foot_index",
  big_toe: "foot_index",
  foot: "foot_index",
  foot_tip: "foot_index",
  tiptoe: "foot_index",
  finger: "index",
  fingers: "index",
  fingertip: "index",
  index_finger: "index",
  little_finger: "pinky",
  pinkie: "pinky",
  waist: "hip",
  hipbone: "hip",
  ball_of_foot: "foot_index",
};

/** Words for central points: a landmark or a midpoint. */
const CENTRAL_SYNONYMS: Readonly<Record<string, string>> = {
  head: "nose",
  face: "nose",
  chin: "nose",
  neck: "mid_shoulder",
  chest: "mid_shoulder",
  sternum: "mid_shoulder",
  torso: "mid_shoulder",
  pelvis: "mid_hip",
  hips: "mid_hip",
  center: "mid_hip",
  centre: "mid_hip",
  shoulders: "mid_shoulder",
  knees: "mid_knee",
  ankles: "mid_ankle",
  feet: "mid_ankle",
  wrists: "mid_wrist",
  hands: "mid_wrist",
  elbows: "mid_elbow",
  heels: "mid_heel",
  eyes: "mid_eye",
  ears: "mid_ear",
};

const PREFIXES: Readonly<Record<string, string>> = {
  left_: "left_",
  right_: "right_",
  l_: "left_",
  r_: "right_",
  opposite_: "opposite_",
  other_: "opposite_",
  mid_: "mid_",
  middle_: "mid_",
  center_: "mid_",
  centre_: "mid_",
};
const SUFFIXES: Readonly<Record<string, string>> = {
  _left: "left_",
  _right: "right_",
  _l: "left_",
  _r: "right_",
};

/** Every valid landmark name, for the closest-name fallback. */
const ALL_NAMES = [
  "nose",
  ...PAIRED_LANDMARKS.flatMap((b) => [b, `left_${b}`, `right_${b}`, `mid_${b}`, `opposite_${b}`]),
];

const COCO = TOPOLOGIES["coco-17"].index;

/** Splits `left_hand` / `hand_left` / `l_hand` into the side prefix (normalised) and the base. */
function split(name: string): { prefix: string; base: string } {
  for (const [p, norm] of Object.entries(PREFIXES))
    if (name.startsWith(p)) return { prefix: norm, base: name.slice(p.length) };
  for (const [s, norm] of Object.entries(SUFFIXES))
    if (name.endsWith(s)) return { prefix: norm, base: name.slice(0, -s.length) };
  return { prefix: "", base: name };
}

/** The landmark an unknown name most likely meant, or undefined. */
export function suggestLandmark(raw: string): string | undefined {
  const name = raw.toLowerCase();
  if (name !== raw && parseLandmarkName(name)) return name;
  const { prefix, base } = split(name);
  const paired = PAIRED_SYNONYMS[base] ?? (PAIRED_LANDMARKS.includes(base) ? base : undefined);
  if (paired) return `${prefix}${paired}`;
  if (!prefix && CENTRAL_SYNONYMS[base]) return CENTRAL_SYNONYMS[base];
  return closest(name, ALL_NAMES);
}

/** ` (did you mean 'left_wrist'?)`, noting a landmark that coco-17 lacks; "" when nothing fits. */
export function landmarkSuggestion(raw: string): string {
  const meant = suggestLandmark(raw);
  if (!meant) return "";
  const ref = parseLandmarkName(meant);
  const base = ref && ref.kind !== "fixed" ? ref.base : meant.replace(/^(left|right)_/, "");
  const cocoHasIt = COCO.has(base) || COCO.has(`left_${base}`);
  return ` (did you mean '${meant}'?${cocoHasIt ? "" : ` It exists in blazepose-33 only, not in coco-17.`})`;
}
