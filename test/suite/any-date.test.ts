/**
 * The suite must pass at any date (main went red on 2026-11-23 because a test built an id for a
 * fixed day). This guard re-runs every in-process test file in a child mocha whose calendar is
 * SHIFT_DAYS ahead (test/support/shifted-clock.ts), so a new test or code path that only works
 * before some date fails today, on any machine, without faketime.
 *
 * Files that start processes (the system, the embedded store, a CLI, Chromium) are left out: their
 * children would keep the real clock. A file that skips steps under faketime says so itself
 * (`skipUnderFakedClock`: a tool it drives reads the real clock). The whole suite, children included, is checked on demand with
 * `faketime -f '+400d' npm run test:only` (docs/testing.md).
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { startsProcesses, testFiles } from "../support/test-files.js";

const SHIFT_DAYS = 1000;
const REPO = join(dirname(fileURLToPath(import.meta.url)), "../..");
const PRELOAD = join(REPO, "test/support/shifted-clock.ts");
const MOCHA = createRequire(import.meta.url).resolve("mocha/bin/mocha.js");
/** Runs node with the shifted clock; resolves with the exit code and everything it wrote. */
function runShifted(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--import", PRELOAD, ...args], {
      cwd: REPO,
      env: { ...process.env, CLOCK_SHIFT_DAYS: String(SHIFT_DAYS) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, output }));
  });
}

interface MochaJson {
  stats: { tests: number; passes: number; failures: number; pending: number };
  failures: { fullTitle: string; err: { message?: string } }[];
}

describe(`the suite at any date: in-process tests with the clock ${SHIFT_DAYS} days ahead`, function () {
  this.timeout(180_000);
  let inProcess: string[];

  before(async () => {
    const files = await testFiles(REPO);
    const starting = await Promise.all(files.map((file) => startsProcesses(REPO, file)));
    inProcess = files.filter((_, index) => !starting[index]);
  });

  it("the preload moves the calendar, and only the calendar", async () => {
    const { code, output } = await runShifted([
      "-e",
      "console.log(JSON.stringify([Date.now(), new Date().getTime(), Date.parse(Date()), new Date(0).getTime()]))",
    ]);
    expect(code, output).to.equal(0);
    const [now, constructed, called, epoch] = JSON.parse(output) as number[];
    const shift = SHIFT_DAYS * 86_400_000;
    for (const reading of [now, constructed, called]) {
      expect(reading - Date.now()).to.be.within(shift - 60_000, shift + 1000);
    }
    expect(epoch).to.equal(0);
  });

  it("selects the in-process test files (the id test among them), not those that start processes", () => {
    expect(inProcess).to.include("test/shared/ids.test.ts");
    expect(inProcess).to.include("test/movespec/engine.test.ts");
    expect(inProcess).not.to.include("test/auth/key-rotation.test.ts");
    expect(inProcess, "drives Chromium").not.to.include("test/movespec/extract-video.test.ts");
    expect(inProcess).not.to.include("test/suite/any-date.test.ts");
  });

  it("every one of them passes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mds-any-date-"));
    try {
      // Two children, every other file each: the parent only waits, so both cores work.
      const shards = [0, 1].map((shard) => inProcess.filter((_, i) => i % 2 === shard));
      const runs = await Promise.all(
        shards.map(async (files, shard) => {
          const report = join(dir, `report-${shard}.json`);
          const { code, output } = await runShifted([
            MOCHA,
            "--no-config",
            // Three times the suite's 20 s: the two children share the cores with each other
            // and with the other test job. With three jobs, the engine's longest test (6 s on a
            // quiet machine) went past 20 s here.
            "--timeout",
            "60000",
            "--reporter",
            "json",
            "--reporter-option",
            `output=${report}`,
            ...files,
          ]);
          const json = JSON.parse(await readFile(report, "utf8").catch(() => "null")) as MochaJson;
          return { code, output, json };
        }),
      );
      let passes = 0;
      for (const { code, output, json } of runs) {
        expect(json, `no report; mocha exited ${code}:\n${output}`).to.not.equal(null);
        const failures = json.failures.map((f) => `${f.fullTitle}: ${f.err.message}`);
        expect(failures, `failing with the clock ${SHIFT_DAYS} days ahead`).to.deep.equal([]);
        expect(code, output).to.equal(0);
        passes += json.stats.passes;
      }
      expect(passes, "tests run").to.be.greaterThan(100);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
