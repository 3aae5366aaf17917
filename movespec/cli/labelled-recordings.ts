/**
 * Recordings with what a person counted in them: `<id>.jsonl` or `<id>.jsonl.gz` (JSON Lines of
 * pose frames) beside `<id>.manifest.json`. A manifest gives the expected count
 * (`expected_repetitions`), and may give the exercise, the true repetitions
 * (`rep_segments_seconds`), the topology, the image's `aspect_ratio` (width / height: keypoints
 * are normalised per axis, so angles depend on it) and an id (`clip_id` or `sequence_id`). A directory of
 * manifests holds them in the directory itself or in its `clips/` folder.
 *
 * `movespec fit` and the accuracy benchmark read recordings through here.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { parseAspectRatio } from "../aspect-ratio.js";
import type { Segment } from "../fit/scoring.js";
import type { TopologyName } from "../topology.js";

export interface Recording {
  /** `clip_id` or `sequence_id` from the manifest, else the file name without its extension. */
  id: string;
  /** The manifest's `exercise`, when it names one. */
  exercise?: string;
  expected: number;
  /** True repetitions in seconds, when the manifest has them. */
  segments?: Segment[];
  topology: TopologyName;
  /** Width / height of the images, when the manifest says it (else the MoveSpec's camera's). */
  aspectRatio?: number;
  /** The recording's file (JSON Lines, optionally gzipped). */
  path: string;
}

interface RawManifest {
  clip_id?: unknown;
  sequence_id?: unknown;
  exercise?: unknown;
  expected_repetitions?: unknown;
  rep_segments_seconds?: unknown;
  topology?: unknown;
  aspect_ratio?: unknown;
}

const MANIFEST_SUFFIX = ".manifest.json";
const RECORDING = /\.jsonl(\.gz)?$/;

export function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** The manifest of a recording file: `x.jsonl.gz` -> `x.manifest.json`. */
export function manifestPath(recordingPath: string): string {
  return recordingPath.replace(RECORDING, "") + MANIFEST_SUFFIX;
}

function manifestFolder(dir: string): string {
  const clips = join(dir, "clips");
  const hasManifests = (d: string) => readdirSync(d).some((f) => f.endsWith(MANIFEST_SUFFIX));
  return !hasManifests(dir) && isDirectory(clips) && hasManifests(clips) ? clips : dir;
}

function segmentsOf(raw: unknown): Segment[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: Segment[] = [];
  for (const s of raw) {
    if (!Array.isArray(s) || s.length !== 2 || !s.every((x) => Number.isFinite(x)))
      return undefined;
    out.push([s[0], s[1]]);
  }
  return out;
}

/**
 * The recording a manifest describes. Throws with the file's name when the manifest is not
 * usable: not JSON, no whole-number expected count, no recording beside it.
 */
export function readManifest(where: string): Recording {
  let m: RawManifest;
  try {
    m = JSON.parse(readFileSync(where, "utf8"));
  } catch (e) {
    throw new Error(`${where}: not valid JSON (${(e as Error).message})`);
  }
  const stem = where.slice(0, -MANIFEST_SUFFIX.length);
  const expected = m.expected_repetitions;
  if (typeof expected !== "number" || !Number.isInteger(expected) || expected < 0)
    throw new Error(`${where}: "expected_repetitions" must be a whole number`);
  const aspectRatio = m.aspect_ratio === undefined ? undefined : parseAspectRatio(m.aspect_ratio);
  if (m.aspect_ratio !== undefined && aspectRatio === undefined)
    throw new Error(`${where}: "aspect_ratio" must be a width / height like 1.778 or "16:9"`);
  const path = [".jsonl.gz", ".jsonl"].map((ext) => stem + ext).find(existsSync);
  if (!path)
    throw new Error(`${where}: no ${basename(stem)}.jsonl or ${basename(stem)}.jsonl.gz beside it`);
  return {
    id:
      typeof m.clip_id === "string"
        ? m.clip_id
        : typeof m.sequence_id === "string"
          ? m.sequence_id
          : basename(stem),
    exercise: typeof m.exercise === "string" ? m.exercise : undefined,
    expected,
    segments: segmentsOf(m.rep_segments_seconds),
    topology:
      typeof m.topology === "string" && /coco/i.test(m.topology) ? "coco-17" : "blazepose-33",
    ...(aspectRatio === undefined ? {} : { aspectRatio }),
    path,
  };
}

/** Every recording of a directory of manifests, sorted by id (see readManifest). */
export function listRecordings(dir: string): Recording[] {
  const folder = manifestFolder(dir);
  return readdirSync(folder)
    .filter((f) => f.endsWith(MANIFEST_SUFFIX))
    .map((f) => readManifest(join(folder, f)))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Recordings named on a command line: a directory stands for every recording of its manifests,
 * a recording file for itself with the manifest beside it.
 */
export function recordingsAt(path: string): Recording[] {
  if (isDirectory(path)) {
    const found = listRecordings(path);
    if (found.length === 0) throw new Error(`${path}: no *.manifest.json in it`);
    return found;
  }
  if (!existsSync(path)) throw new Error(`${path}: no such file or directory`);
  if (path.endsWith(MANIFEST_SUFFIX)) return [readManifest(path)];
  if (!RECORDING.test(path))
    throw new Error(`${path}: not a recording (.jsonl, .jsonl.gz) or a directory of them`);
  const manifest = manifestPath(path);
  if (!existsSync(manifest))
    throw new Error(`${path}: no manifest beside it (${basename(manifest)}) to say its count`);
  return [{ ...readManifest(manifest), path }];
}

export interface FrameLines {
  /** Parsed lines, in file order (the engine judges them, as the service would). */
  frames: unknown[];
  /** Lines that are not JSON. */
  unreadable: number;
}

export function readFrames(path: string): FrameLines {
  const raw = readFileSync(path);
  const text = (path.endsWith(".gz") ? gunzipSync(raw) : raw).toString("utf8");
  const frames: unknown[] = [];
  let unreadable = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      frames.push(JSON.parse(line));
    } catch {
      unreadable++;
    }
  }
  return { frames, unreadable };
}
