/**
 * An exclusive lock on a data directory: `mongod.lock` holding the owner's pid. A lock left
 * by a process that no longer exists (after kill -9) is taken over; a live owner is an error.
 */
import fs from "node:fs";
import path from "node:path";

export class DataDirLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(`data directory ${dir} is already in use by process ${pid} (lock file mongod.lock)`);
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export interface DirLock {
  release(): void;
}

/** Locks held by servers inside this process (the pid check cannot tell them apart). */
const heldInProcess = new Set<string>();

export function acquireDirLock(dir: string): DirLock {
  const file = path.resolve(dir, "mongod.lock");
  if (heldInProcess.has(file)) throw new DataDirLockedError(dir, process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(file, "wx");
      fs.writeSync(fd, `${process.pid}\n`);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      let released = false;
      heldInProcess.add(file);
      return {
        release() {
          if (released) return;
          released = true;
          heldInProcess.delete(file);
          fs.rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = Number.parseInt(fs.readFileSync(file, "utf8").trim(), 10);
      if (isAlive(owner) && owner !== process.pid) throw new DataDirLockedError(dir, owner);
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`could not acquire lock on data directory ${dir}`);
}
