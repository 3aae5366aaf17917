import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import { EXAMPLES, FIXTURES } from "./support/recordings.js";

const run = promisify(execFile);
const MAIN = join(EXAMPLES, "..", "..", "movespec", "cli", "main.ts");

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", MAIN, ...args], {
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("movespec command-line tool", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "movespec-cli-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("runs a MoveSpec over a recording and prints the events and the count", async () => {
    const r = await cli(["run", join(EXAMPLES, "squat.yaml"), join(FIXTURES, "m01_s01.jsonl.gz")]);
    expect(r.code).to.equal(0);
    expect(r.stdout).to.match(/rep 1 \(/);
    expect(r.stdout).to.match(/^count: 10$/m);
  });

  it("prints detection events as JSON lines with --json and plots to SVG with --plot", async () => {
    const svg = join(dir, "plot.svg");
    const r = await cli([
      "run",
      join(EXAMPLES, "shoulder-abduction.yaml"),
      join(FIXTURES, "m07_s02.jsonl.gz"),
      "--json",
      "--plot",
      svg,
    ]);
    expect(r.code).to.equal(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.filter((e) => e.type === "rep.completed")).to.have.length(10);
    expect(events[events.length - 1].type).to.equal("session.summary");
    const plot = readFileSync(svg, "utf8");
    expect(plot).to.match(/^<svg/);
    expect(plot).to.include("arm_elevation");
    expect(plot).to.include("raised enter 80");
    expect((plot.match(/stroke="#2ca02c"/g) ?? []).length).to.be.greaterThan(9);
  });

  it("plots an adaptive signal's thresholds where they are, moving with the range, on its source", async () => {
    const svg = join(dir, "adaptive.svg");
    const r = await cli([
      "run",
      join(EXAMPLES, "squat.yaml"),
      join(FIXTURES, "m01_s02.jsonl.gz"),
      "--plot",
      svg,
    ]);
    expect(r.code).to.equal(0);
    expect(r.stdout).to.match(/^count: 10$/m);
    const plot = readFileSync(svg, "utf8");
    // The range as a band, and one moving line per threshold of `depth`, labelled on `hips`.
    expect(plot).to.include('fill-opacity="0.07"');
    const moving = plot.match(/<path d="([^"]+)" fill="none" stroke="#7b3294"/g) ?? [];
    expect(moving).to.have.length(4);
    for (const label of ["up enter 0.3", "up exit 0.4", "down enter 0.6", "down exit 0.5"])
      expect(plot).to.include(`${label} of the range`);
    // The lines move: the y of the "down enter" line takes many values over the recording.
    const ys = new Set(
      (moving[2].match(/[ML][0-9.]+,([0-9.]+)/g) ?? []).map((p) => p.split(",")[1]),
    );
    expect(ys.size).to.be.greaterThan(20);
  });

  it("reports rejected frames and goes on", async () => {
    const rec = join(dir, "bad.jsonl");
    const kp = Array.from({ length: 33 }, () => [0.5, 0.5, 0, 1]);
    writeFileSync(
      rec,
      [
        JSON.stringify({ seq: 1, t: 0, keypoints: kp }),
        "not json",
        JSON.stringify({ seq: 1, t: 0.1, keypoints: kp }),
        JSON.stringify({ seq: 2, t: 0.2, keypoints: kp.slice(0, 5) }),
        "",
      ].join("\n"),
    );
    const r = await cli(["run", join(EXAMPLES, "squat.yaml"), rec]);
    expect(r.code).to.equal(0);
    expect(r.stderr).to.include("not valid JSON");
    expect(r.stderr).to.include("SEQ_NOT_INCREASING");
    expect(r.stderr).to.include("KEYPOINT_COUNT_MISMATCH");
    expect(r.stdout).to.match(/^count: 0$/m);
  });

  it("validates a MoveSpec and shows issues as file:line:column", async () => {
    const ok = await cli(["validate", join(EXAMPLES, "lunge.yaml")]);
    expect(ok.code).to.equal(0);
    expect(ok.stdout).to.include("ok");
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "movespec: 1\nname: x\nsignals:\n  k: angle(hip, knee)\nphases: {}\n");
    const r = await cli(["validate", bad]);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.include(`${bad}:4:6: error ARGUMENT_COUNT`);
  });

  it("explains its usage on wrong arguments", async () => {
    const r = await cli(["frobnicate"]);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include("usage");
  });
});
