/**
 * An exclusive lock on a data directory: `mongod.lock` holding the owner's pid. A lock left
 * by a process that no longer exists (after kill -9) is taken over; a live owner is an error.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

export class DataDirLockedError extends Error {
  /** `pid`: the owner, when its lock file already says (it writes it just after its guard). */
  constructor(dir: string, pid: number | undefined) {
    const owner = pid !== undefined && Number.isInteger(pid) ? `process ${pid}` : "another process";
    super(`data directory ${dir} is already in use by ${owner} (lock file mongod.lock)`);
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
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createLockFile(file)) {
      let released = false;
      heldInProcess.add(file);
      return {
        release() {
          if (released) return;
          released = true;
          heldInProcess.delete(file);
          // Only our own lock: never one another process took over meanwhile.
          if (ownerOf(file) === process.pid) fs.rmSync(file, { force: true });
        },
      };
    }
    const owner = ownerOf(file);
    if (owner === undefined) continue; // gone meanwhile: try again
    if (isAlive(owner) && owner !== process.pid) throw new DataDirLockedError(dir, owner);
    takeOverStale(file, owner);
  }
  throw new Error(`could not acquire lock on data directory ${dir}`);
}

/**
 * Creates the lock file with our pid in it, atomically: the pid is written to a file of our own,
 * which is then linked to the lock's name (a link fails if the name exists). Nobody ever reads
 * a lock file without its pid (an empty one would read as a dead owner). False if it exists.
 */
function createLockFile(file: string): boolean {
  const own = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  fs.writeFileSync(own, `${process.pid}\n`, { flag: "wx" });
  try {
    const fd = fs.openSync(own, "r");
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.linkSync(own, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    fs.rmSync(own, { force: true });
  }
}

/** The pid in the lock file; undefined if there is none; NaN if it holds no pid. */
function ownerOf(file: string): number | undefined {
  try {
    return Number.parseInt(fs.readFileSync(file, "utf8").trim(), 10);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Removes a lock whose owner `stale` is dead. Read-then-delete would race: two processes taking
 * it over could each delete the other's new lock. The lock is renamed away instead (one rename
 * wins), and if what was renamed is not the dead owner's lock (a new one, made in between), it is
 * linked back; had a third lock appeared in its place meanwhile, the two live owners would both
 * hold one, so the one moved away is dropped and its owner finds out when it checks (below).
 */
function takeOverStale(file: string, stale: number): void {
  const moved = `${file}.stale.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    fs.renameSync(file, moved);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return; // someone else did
    throw error;
  }
  try {
    const owner = Number.parseInt(fs.readFileSync(moved, "utf8").trim(), 10);
    if (owner !== stale && !(Number.isNaN(owner) && Number.isNaN(stale))) {
      try {
        fs.linkSync(moved, file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
    }
  } finally {
    fs.rmSync(moved, { force: true });
  }
}

/**
 * Exclusive use of a data directory by this process, held by the kernel where it can be: on
 * Linux, an abstract Unix socket named after the directory's device and inode, which only one
 * process can bind and which the kernel releases when the process dies, however it dies. The
 * pid file (acquireDirLock) names the owner for people; this makes two servers starting at the
 * same instant on one directory impossible, which a file alone cannot. Elsewhere: no guard.
 */
export async function holdDataDirectory(dir: string): Promise<DirLock> {
  if (process.platform !== "linux") return { release: () => undefined };
  const { dev, ino } = fs.statSync(dir, { bigint: true });
  const name = `\0mds-embedded-mongo-datadir:${dev}:${ino}`;
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EADDRINUSE") return reject(error);
      const owner = ownerOf(path.resolve(dir, "mongod.lock"));
      reject(new DataDirLockedError(dir, owner));
    });
    server.listen({ path: name, exclusive: true }, () => resolve());
  });
  server.unref();
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      server.close();
    },
  };
}
