/**
 * The clips of real people exercising in ../shared/video (beside the clone: CI's clone has it,
 * a developer's clone or worktree may not), with the counts their source labelled (index.json).
 * Licence: tests and evaluation only: they are read from there, never copied into the
 * repository, nor anything made from them (recordings, frames) kept in it.
 *
 * SHARED_VIDEO_DIR points elsewhere (a worktree whose ../shared is not the clone's). Tests that
 * need the clips skip, saying so, when the folder is absent.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
export const SHARED_VIDEO_DIR = process.env.SHARED_VIDEO_DIR || join(ROOT, "..", "shared", "video");

export interface SharedVideo {
  readonly file: string;
  readonly exercise: string;
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  readonly frames: number;
  readonly expected_repetitions: number;
  readonly rep_start_frames: readonly number[];
}

/** The clips by file name, or undefined when the folder is not there. */
export function sharedVideos(): Map<string, SharedVideo & { path: string }> | undefined {
  const index = join(SHARED_VIDEO_DIR, "index.json");
  if (!existsSync(index)) return undefined;
  const { videos } = JSON.parse(readFileSync(index, "utf8")) as { videos: SharedVideo[] };
  return new Map(videos.map((v) => [v.file, { ...v, path: join(SHARED_VIDEO_DIR, v.file) }]));
}

/** Skips the suite (or test) with the reason when the clips are absent. */
export function requireSharedVideos(
  context: Mocha.Context,
): Map<string, SharedVideo & { path: string }> {
  const videos = sharedVideos();
  if (!videos) {
    console.log(
      `      (skipped: no clips at ${SHARED_VIDEO_DIR}: a clone has no ../shared; set SHARED_VIDEO_DIR)`,
    );
    context.skip();
  }
  return videos as Map<string, SharedVideo & { path: string }>;
}
