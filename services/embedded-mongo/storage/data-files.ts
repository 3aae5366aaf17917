/**
 * The files of a data directory: `snapshot-N.bson`, the state at the start of `wal-N.log`, and
 * the logs written since, numbered by generation. Recovery reads them; compaction adds a
 * generation and deletes the ones the newest snapshot replaces.
 */
import fs from "node:fs";
import path from "node:path";

export const walName = (generation: number): string =>
  `wal-${String(generation).padStart(8, "0")}.log`;
export const snapshotName = (generation: number): string =>
  `snapshot-${String(generation).padStart(8, "0")}.bson`;
export const WAL_FILE = /^wal-(\d+)\.log$/;
export const SNAPSHOT_FILE = /^snapshot-(\d+)\.bson$/;

/** The generations of the files whose names match, oldest first. */
export function generationsOf(files: string[], pattern: RegExp): number[] {
  return files
    .map((f) => pattern.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

/** Deletes the snapshots and logs older than `generation` (the newest snapshot's). */
export function removeFilesBefore(dir: string, generation: number): void {
  const files = fs.readdirSync(dir);
  for (const g of generationsOf(files, SNAPSHOT_FILE)) {
    if (g < generation) fs.rmSync(path.join(dir, snapshotName(g)), { force: true });
  }
  for (const g of generationsOf(files, WAL_FILE)) {
    if (g < generation) fs.rmSync(path.join(dir, walName(g)), { force: true });
  }
}
