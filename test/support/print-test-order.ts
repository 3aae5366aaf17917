/**
 * Prints the suite's test files, one per line, in the order `npm run test:only` gives them to
 * mocha's workers, which take them first come, first served: the files that start processes
 * first (a few seconds to minutes each), the in-process ones after (a second or so each), so the
 * workers end together instead of one finishing a long file alone. The any-date guard goes first
 * of all: the longest file (it re-runs every in-process file under a shifted clock), it ran last
 * alphabetically and often held the suite's tail alone.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startsProcesses, testFiles } from "./test-files.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "../..");
const FIRST = "test/suite/any-date.test.ts";

const files = await testFiles(REPO);
const heavy = await Promise.all(files.map((file) => startsProcesses(REPO, file)));
const order = [
  ...files.filter((file) => file === FIRST),
  ...files.filter((file, i) => heavy[i] && file !== FIRST),
  ...files.filter((file, i) => !heavy[i] && file !== FIRST),
];
process.stdout.write(`${order.join("\n")}\n`);
