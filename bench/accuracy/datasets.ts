/**
 * Directories of recordings with manifests: `<id>.manifest.json` beside `<id>.jsonl` or
 * `<id>.jsonl.gz` (in the directory itself or in its `clips/` folder). The manifest gives the
 * exercise, the expected count and, optionally, the true repetitions (`rep_segments_seconds`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { Segment } from "./scoring.js";

export interface Recording {
  /** `clip_id` or `sequence_id` from the manifest, else the file name. */
  id: string;
  exercise: string;
  expected: number;
  /** True repetitions in seconds, when the manifest has them. */
  segments?: Segment[];
  topology: "blazepose-33" | "coco-17";
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
}

const MANIFEST_SUFFIX = ".manifest.json";

export function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
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
 * Every recording of a directory, sorted by id. Throws with the file's name on a manifest that
 * is not usable (no exercise, no expected count, no recording beside it).
 */
export function listRecordings(dir: string): Recording[] {
  const folder = manifestFolder(dir);
  const out: Recording[] = [];
  for (const file of readdirSync(folder)
    .filter((f) => f.endsWith(MANIFEST_SUFFIX))
    .sort()) {
    const where = join(folder, file);
    let m: RawManifest;
    try {
      m = JSON.parse(readFileSync(where, "utf8"));
    } catch (e) {
      throw new Error(`${where}: not valid JSON (${(e as Error).message})`);
    }
    const stem = file.slice(0, -MANIFEST_SUFFIX.length);
    const id =
      typeof m.clip_id === "string"
        ? m.clip_id
        : typeof m.sequence_id === "string"
          ? m.sequence_id
          : stem;
    if (typeof m.exercise !== "string") throw new Error(`${where}: no "exercise"`);
    const expected = m.expected_repetitions;
    if (typeof expected !== "number" || !Number.isInteger(expected) || expected < 0)
      throw new Error(`${where}: "expected_repetitions" must be a whole number`);
    const path = [".jsonl.gz", ".jsonl"].map((ext) => join(folder, stem + ext)).find(existsSync);
    if (!path) throw new Error(`${where}: no ${stem}.jsonl or ${stem}.jsonl.gz beside it`);
    out.push({
      id,
      exercise: m.exercise,
      expected,
      segments: segmentsOf(m.rep_segments_seconds),
      topology:
        typeof m.topology === "string" && /coco/i.test(m.topology) ? "coco-17" : "blazepose-33",
      path,
    });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
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
