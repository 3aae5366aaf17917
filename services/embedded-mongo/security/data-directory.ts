/**
 * The data directory is private to the user running the server, like mongod's (which creates its
 * files with umask 077): the directory 0700, every file in it 0600. Directories and files left
 * more open by an older version, or by hand, are tightened at every start.
 */
import fs from "node:fs";
import path from "node:path";
import type { Logger } from "pino";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates the directory if missing and tightens it and its files; returns the files changed. */
export function secureDataDirectory(dir: string, logger: Logger): string[] {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const tightened: string[] = [];
  const stat = fs.statSync(dir); // the directory may be a symbolic link to one
  if (!stat.isDirectory()) throw new Error(`data directory ${dir} is not a directory`);
  if ((stat.mode & 0o777) !== PRIVATE_DIR_MODE) {
    fs.chmodSync(dir, PRIVATE_DIR_MODE);
    tightened.push(dir);
  }
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue; // symbolic links are not followed; there are no subdirectories
    const file = path.join(dir, entry.name);
    if ((fs.lstatSync(file).mode & 0o777) !== PRIVATE_FILE_MODE) {
      fs.chmodSync(file, PRIVATE_FILE_MODE);
      tightened.push(file);
    }
  }
  if (tightened.length > 0) {
    logger.warn(
      { dataDir: dir, tightened: tightened.map((f) => path.relative(dir, f) || ".") },
      "data directory permissions tightened (directory 0700, files 0600)",
    );
  }
  return tightened;
}

/**
 * Writes a file readable by its owner only, atomically: a temporary file created 0600, fsynced,
 * renamed over the target, and the directory fsynced. A crash leaves the old file or the new one.
 */
export function writePrivateFile(file: string, content: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, "w", PRIVATE_FILE_MODE);
  try {
    fs.fchmodSync(fd, PRIVATE_FILE_MODE); // an existing leftover keeps its mode otherwise
    fs.writeSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  const dirFd = fs.openSync(path.dirname(file), "r");
  try {
    fs.fsyncSync(dirFd);
  } finally {
    fs.closeSync(dirFd);
  }
}
