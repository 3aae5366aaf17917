/**
 * Servers starting at the same instant on one data directory (a stale lock left by kill -9, or
 * none): exactly one gets it. A lock file alone let several through (an empty file read as a
 * dead owner; a stale lock's takeover deleted a fresh one); the kernel's guard does not.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";

const run = promisify(execFile);
const CONTENDER = path.join(path.dirname(fileURLToPath(import.meta.url)), "lock-contender.ts");
const CONTENDERS = 6;

/** A pid no process has (pid_max is at most 2^22 on Linux). */
const DEAD_PID = 4_194_304 + 1;

async function race(dir: string): Promise<string[]> {
  const at = Date.now() + 2500; // after every contender has loaded
  const outputs = await Promise.all(
    Array.from({ length: CONTENDERS }, () =>
      run(process.execPath, ["--import", "tsx", CONTENDER, dir, String(at)], { timeout: 30_000 }),
    ),
  );
  return outputs.map(({ stdout }) => stdout.trim());
}

describe("embedded-mongo: processes racing for one data directory", function () {
  this.timeout(60_000);
  if (process.platform !== "linux") return;

  for (const start of ["a stale lock (its owner killed)", "no lock"]) {
    it(`${start}: exactly one of ${CONTENDERS} gets it, the others are told who has it`, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mds-lock-race-"));
      try {
        if (start.startsWith("a stale"))
          fs.writeFileSync(path.join(dir, "mongod.lock"), `${DEAD_PID}\n`);
        const said = await race(dir);
        expect(
          said.filter((line) => line === "held"),
          said.join("\n"),
        ).to.have.length(1);
        for (const line of said.filter((l) => l !== "held")) {
          expect(line).to.match(
            /^refused data directory .* is already in use by (process \d+|another process) \(lock file/,
          );
        }
        // Released: nothing is left behind, and the directory can be taken again.
        await new Promise((resolve) => setTimeout(resolve, 2000));
        expect(fs.readdirSync(dir)).to.deep.equal([]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
