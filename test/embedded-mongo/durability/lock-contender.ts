/**
 * One of several processes racing for a data directory (lock-race.test.ts): at the agreed
 * instant, takes the kernel guard and the lock file as the server does, says `held` or
 * `refused`, and holds what it got for a while so that the others race against a live owner.
 */
import {
  acquireDirLock,
  holdDataDirectory,
} from "../../../services/embedded-mongo/storage/lock-file.js";

const [dir, at] = process.argv.slice(2);
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(at) - Date.now())));
try {
  const guard = await holdDataDirectory(dir);
  const lock = acquireDirLock(dir);
  process.stdout.write("held\n");
  setTimeout(() => {
    lock.release();
    guard.release();
  }, 1500);
} catch (error) {
  process.stdout.write(`refused ${(error as Error).message}\n`);
}
