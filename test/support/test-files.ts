/**
 * The suite's test files, and which of them start processes (the system, the embedded store, a
 * CLI, Chromium): the any-date guard re-runs only the others under a shifted clock (their
 * children would keep the real clock), and `npm run test:only` hands the process-starting ones to
 * the workers first (./print-test-order.ts).
 */
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

/** What a test file that starts processes mentions (directly or through its local harness). */
const STARTS_PROCESSES =
  /startTestSystem|startEmbeddedMongo|startStack|startLauncher|node:child_process|\/harness\.js|skipUnderFakedClock/;

/** Every `*.test.ts` under `dir`, relative to `repo`, sorted. */
export async function testFiles(repo: string, dir = join(repo, "test")): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".test.ts"))
    .map((entry) => relative(repo, join(entry.parentPath, entry.name)))
    .sort();
}

/** Whether the test file (relative to `repo`) starts processes. */
export async function startsProcesses(repo: string, file: string): Promise<boolean> {
  return STARTS_PROCESSES.test(await readFile(join(repo, file), "utf8"));
}
