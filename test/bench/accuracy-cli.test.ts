/** The accuracy benchmark as a process, on the bundled UI-PRMD fixtures. */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const FIXTURES = join(root, "test", "fixtures", "posedata", "uiprmd");

function bench(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", join(root, "bench", "accuracy", "accuracy.bench.ts"), ...args],
      { cwd: root },
      (error, stdout, stderr) =>
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
    );
  });
}

describe("accuracy benchmark command", () => {
  it("counts the UI-PRMD deep squats exactly, as shipped and cross-validated (--json)", async () => {
    const r = await bench([
      FIXTURES,
      "--exercise",
      "deep_squat",
      "--folds",
      "3",
      "--no-perturb",
      "--no-specificity",
      "--json",
    ]);
    expect(r.code, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout);
    expect(report).to.include({ folds: 3, seed: 1 });
    const [ds] = report.datasets;
    expect(ds.present).to.equal(true);
    expect(ds.clips.map((c: { id: string }) => c.id)).to.deep.equal([
      "m01_s01",
      "m01_s02",
      "m01_s03",
    ]);
    expect(ds.clips.map((c: { fold: number }) => c.fold).sort()).to.deep.equal([0, 1, 2]);
    expect(ds.exercises).to.have.length(1);
    expect(ds.exercises[0]).to.deep.include({ exercise: "deep_squat", spec: "squat" });
    expect(ds.exercises[0].shipped).to.include({
      clips: 3,
      exact: 3,
      withinOne: 3,
      mae: 0,
      counted: 30,
      inside: 30,
    });
    expect(ds.exercises[0].crossValidated).to.include({ clips: 3, exact: 3 });
    expect(ds.balanced.crossValidated).to.include({ exercises: 1, exact: 1, withinOne: 1 });
    expect(r.stderr).to.match(
      /counted 3 recordings with 1 MoveSpecs, cross-validated \(3 folds, seed 1\)/,
    );
  });

  it("counts perturbed recordings and every MoveSpec on every movement", async () => {
    const r = await bench([FIXTURES, "--exercise", "deep_squat", "--no-cv", "--json"]);
    expect(r.code, r.stderr).to.equal(0);
    const report = JSON.parse(r.stdout);
    const perturbations = report.perturbations.map((p: { perturbation: string }) => p.perturbation);
    expect(perturbations).to.deep.equal([
      "10% of frames dropped",
      "15 fps",
      "1% keypoint jitter",
      "mirrored",
      "camera turned 35 degrees",
    ]);
    for (const p of report.perturbations)
      expect(p, p.perturbation).to.include({ recordings: 3, changed: 0, exact: 3 });
    const cell = (spec: string, exercise: string) =>
      report.specificity.find(
        (c: { spec: string; exercise: string }) => c.spec === spec && c.exercise === exercise,
      );
    expect(cell("shoulder-abduction", "deep_squat")).to.deep.include({
      counts: [0, 0, 0],
      expected: 30,
    });
    expect(cell("shoulder-abduction", "standing_shoulder_abduction").counts).to.deep.equal([
      10, 10, 10,
    ]);
    expect(
      report.goals.some((g: string) =>
        /specificity: squat on side_lunge \d+\/\d+\/\d+ \(<= 1 each\)/.test(g),
      ),
    ).to.equal(true);
  });

  it("prints a table per exercise and a line per recording with -v", async () => {
    const r = await bench([
      FIXTURES,
      "--exercise",
      "side_lunge,deep_squat",
      "--no-cv",
      "--no-perturb",
      "--no-specificity",
      "-v",
    ]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^deep_squat\s+squat\s+3\s+3 \(100%\)\s+3 \(100%\)\s+0\.00/m);
    expect(r.stdout).to.match(/^side_lunge\s+lunge\s+3 /m);
    expect(r.stdout).to.match(/^all \(pooled\)\s+6\s+6 \(100%\)/m);
    expect(r.stdout).to.match(/^class-balanced\s+2\s+100%\s+100%/m);
    expect(r.stdout).to.match(/m04_s02 .*expected\s+10\s+counted\s+10 \(0\)\s+inside 10\/10/);
  });

  it("scores an exercise without a reference MoveSpec as a miss", async () => {
    const empty = mkdtempSync(join(tmpdir(), "no-specs-"));
    try {
      const r = await bench([FIXTURES, "--specs", empty, "--exercise", "sit_to_stand", "--json"]);
      expect(r.code, r.stderr).to.equal(0);
      const row = JSON.parse(r.stdout).datasets[0].exercises[0];
      expect(row.shipped).to.include({ clips: 3, missing: 3, exact: 0, withinOne: 0, mae: 10 });
      expect(row.crossValidated).to.include({ clips: 3, missing: 3, exact: 0 });
    } finally {
      rmSync(empty, { recursive: true });
    }
  });

  it("--write-fitted creates its directory and writes the fitted MoveSpec there", async () => {
    const parent = mkdtempSync(join(tmpdir(), "fitted-"));
    const out = join(parent, "not", "yet");
    try {
      const r = await bench([
        FIXTURES,
        "--exercise",
        "deep_squat",
        "--folds",
        "3",
        "--no-perturb",
        "--no-specificity",
        "--write-fitted",
        out,
      ]);
      expect(r.code, r.stderr).to.equal(0);
      expect(readFileSync(join(out, "squat.yaml"), "utf8")).to.match(/^fit:\n {2}min_range:/m);
      // 3 deep squats and the 9 recordings it must not count (side lunges, shoulder movements).
      expect(r.stderr).to.match(/squat: fitted on 12 recordings, written to /);
    } finally {
      rmSync(parent, { recursive: true });
    }
  });

  it("refuses a data directory that does not exist, and a wrong option", async () => {
    const missing = await bench([join(root, "no-such-dir")]);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.match(/not a directory/);
    const wrong = await bench(["--frobnicate"]);
    expect(wrong.code).to.equal(2);
    expect(wrong.stderr).to.match(/usage:/);
    const folds = await bench(["--folds", "0"]);
    expect(folds.code).to.equal(2);
    expect(folds.stderr).to.match(/--folds must be a whole number/);
  });
});
