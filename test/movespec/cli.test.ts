import { execFile } from "node:child_process";
import {
  copyFileSync,
  createWriteStream,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { main } from "@movement-detection/movespec/cli";
import { parseExtractModel } from "@movement-detection/movespec/video";
import { installedPoseModels } from "@movement-detection/sdk/pose-assets";
import { DEFAULT_POSE_MODEL, POSE_MODELS } from "@movement-detection/sdk/pose-models";
import { expect } from "chai";
import { skipUnderFakedClock } from "../support/faked-clock.js";
import { textSink } from "../support/text-sink.js";
import { EXAMPLES, FIXTURES, readFrames } from "./support/recordings.js";
import { Screen, tty } from "./support/terminal.js";

const run = promisify(execFile);
const MAIN = join(EXAMPLES, "..", "..", "movespec", "cli", "main.ts");
const SQUAT = join(EXAMPLES, "squat.yaml");
/** The squat with fixed thresholds and a start condition (the reference squat is adaptive). */
const FIXED_SQUAT = join(FIXTURES, "..", "..", "movespecs", "squat-fixed-thresholds.yaml");
const M01 = join(FIXTURES, "m01_s01.jsonl.gz");

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", MAIN, ...args], {
      timeout: 60_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** `main` in this process (no start-up of its own): for the tests that need no exit code. */
async function inProcess(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = sink();
  const stderr = sink();
  const code = await main(args, { stdout, stderr });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const sink = textSink;

describe("movespec command-line tool", function () {
  this.timeout(120_000);
  let dir: string;
  /** m01_s01 ten times over (230 s, 6,900 frames, ~7 MB): long enough for a progress bar. */
  let long: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "movespec-cli-"));
    long = join(dir, "long.jsonl");
    const out = createWriteStream(long);
    const frames = readFrames("m01_s01");
    let seq = 0;
    for (let k = 0; k < 10; k++)
      for (const f of frames) {
        out.write(`${JSON.stringify({ seq, t: seq / 30, keypoints: f.keypoints })}\n`);
        seq++;
      }
    await new Promise((resolve) => out.end(resolve));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe("run", () => {
    it("runs a MoveSpec over a recording and prints the events and the count", async () => {
      const r = await cli(["run", SQUAT, M01]);
      expect(r.code).to.equal(0);
      expect(r.stdout).to.match(/rep 1 \(/);
      expect(r.stdout).to.match(/^count: 10$/m);
      expect(r.stdout).to.not.include("phase");
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
      expect(events.filter((e) => e.type === "phase.entered").length).to.be.greaterThan(19);
      expect(events[events.length - 1].type).to.equal("session.summary");
      const plot = readFileSync(svg, "utf8");
      expect(plot).to.match(/^<svg/);
      expect(plot).to.include("arm_elevation (degrees)");
      expect(plot).to.include("raised enter: 75");
      expect(plot).to.include("time (s)");
      expect(r.stderr).to.match(/plot written to .*plot\.svg \(\d+ KB\)/);
    });

    it("-v prints phase changes and when the start condition is met", async () => {
      const r = await cli(["run", FIXED_SQUAT, M01, "-v"]);
      expect(r.code).to.equal(0);
      const lines = r.stdout.split("\n");
      const met = lines.findIndex((l) => l.includes("start condition met: in 'up' for 0.25 s"));
      const firstDown = lines.findIndex((l) => /phase up -> down knees=\d/.test(l));
      expect(met).to.be.greaterThan(-1);
      expect(firstDown).to.be.greaterThan(met);
      expect(lines.filter((l) => l.includes("phase down -> up"))).to.have.length(10);
      expect(r.stdout).to.match(/^count: 10$/m);
    });

    it("plots an adaptive signal's thresholds where they are, moving with the range, on its source", async () => {
      const svg = join(dir, "adaptive.svg");
      const r = await cli(["run", SQUAT, join(FIXTURES, "m01_s02.jsonl.gz"), "--plot", svg]);
      expect(r.code).to.equal(0);
      expect(r.stdout).to.match(/^count: 10$/m);
      const plot = readFileSync(svg, "utf8");
      expect(plot).to.include(
        "adaptive threshold, in the source&#39;s units".replace("&#39;", "'"),
      );
      // The range as a band, and one moving line per threshold of `depth`, labelled on `hips`.
      expect(plot).to.include('fill-opacity="0.07"');
      const moving = plot.match(/<path d="([^"]+)" fill="none" stroke="#7b3294"/g) ?? [];
      expect(moving).to.have.length(4);
      for (const label of ["up enter: 0.3", "up exit: 0.4", "down enter: 0.6", "down exit: 0.5"])
        expect(plot).to.include(`${label} of the range`);
      // The lines move: the y of a threshold's line takes many values over the recording.
      const ys = new Set(
        (moving[2].match(/[ML][0-9.]+,([0-9.]+)/g) ?? []).map((p) => p.split(",")[1]),
      );
      expect(ys.size).to.be.greaterThan(20);
    });

    it("prints tracking events, with what is missing", async () => {
      // The right arm's landmarks drop out for a second in the middle of the recording.
      const rec = join(dir, "dropout.jsonl");
      const frames = readFrames("m07_s01").map((f, i) => ({
        ...f,
        keypoints:
          i >= 300 && i < 330
            ? f.keypoints.map((k, j) => ([12, 14, 16].includes(j) ? [k[0], k[1], k[2], 0.1] : k))
            : f.keypoints,
      }));
      writeFileSync(rec, frames.map((f) => JSON.stringify(f)).join("\n"));
      const r = await cli(["run", join(EXAMPLES, "shoulder-abduction.yaml"), rec]);
      expect(r.stdout).to.match(
        /tracking lost \[right\]: right_shoulder, right_elbow, right_wrist not visible since t=10\.0\ds/,
      );
      expect(r.stdout).to.match(/tracking regained \[right\] after \d/);
    });

    it("--stats prints each signal's min, median and max per phase", async () => {
      const r = await cli(["run", FIXED_SQUAT, M01, "--stats"]);
      expect(r.code).to.equal(0);
      const block = r.stdout.split("knees (degrees)")[1].split("\n").slice(1, 5);
      const row = (phase: string) => {
        const line = block.find((l) => l.trim().startsWith(phase))!;
        const [min, median, max, frames] = line
          .trim()
          .slice(phase.length)
          .trim()
          .split(/\s+/)
          .map(Number);
        return { min, median, max, frames };
      };
      const up = row("up");
      const down = row("down");
      // In `up` the engine stays while knees >= 132 (its exit); in `down` while knees <= 128.
      expect(up.min).to.be.at.least(132);
      expect(down.max).to.be.at.most(128);
      for (const s of [up, down]) {
        expect(s.min).to.be.at.most(s.median);
        expect(s.median).to.be.at.most(s.max);
      }
      const all = row("(all frames)");
      expect(all.frames).to.equal(690);
      expect(up.frames + down.frames + row("(between phases)").frames).to.equal(690);
      expect(r.stdout).to.include("trunk_lean (degrees)");
    });

    it("--stats prints every signal, also one that no phase, rule or metric reads", async () => {
      const spec = join(dir, "spare-signal.yaml");
      writeFileSync(
        spec,
        readFileSync(FIXED_SQUAT, "utf8").replace(
          "signals:\n",
          "signals:\n  hip_angle: angle2d(shoulder, hip, knee) # read by nothing\n",
        ),
      );
      const r = await inProcess(["run", spec, M01, "--stats"]);
      expect(r.code).to.equal(0);
      for (const signal of ["left.hip_angle", "right.hip_angle", "left.knee_angle", "knees"])
        expect(r.stdout).to.match(new RegExp(`^${signal.replace(".", "\\.")} \\(degrees\\)`, "m"));
      // Computing it changes no event: the count is the same.
      expect(r.stdout).to.match(/^count: 10$/m);
    });

    it("--stats --json prints the stats as one JSON object after the events", async () => {
      const r = await cli(["run", FIXED_SQUAT, M01, "--stats", "--json"]);
      const last = JSON.parse(r.stdout.trim().split("\n").pop()!);
      expect(last.stats.knees.up.min).to.be.at.least(132);
      expect(last.stats.knees["(all frames)"].frames).to.equal(690);
    });

    it("says why a repetition was partial, with the value and the limit", async () => {
      const spec = join(dir, "slow-squat.yaml");
      writeFileSync(
        spec,
        readFileSync(FIXED_SQUAT, "utf8").replace("within: [0.5s, 8s]", "within: [2s, 8s]"),
      );
      const r = await cli(["run", spec, M01]);
      expect(r.stdout).to.match(/partial rep: too_fast: 1\.\d+ s < within\.min 2 s/);
      expect(r.stdout).to.match(/^count: 0$/m);
    });

    it("says when the start condition was never met, and which part of it", async () => {
      const spec = join(dir, "never-start.yaml");
      writeFileSync(
        spec,
        readFileSync(FIXED_SQUAT, "utf8").replace(
          "start: { phase: up, for: 0.25s }",
          "start: { phase: up, for: 0.25s, when: trunk_lean > 90 }",
        ),
      );
      const r = await cli(["run", spec, M01]);
      expect(r.stdout).to.match(
        /note: nothing could be counted: the start condition was never met: 'up' was held \d+\.\d\d s but never 0\.25 s while start\.when held/,
      );
      expect(r.stdout).to.match(/^count: 0$/m);
    });

    it("without start, names the first phase never entered and the nearest its signal came", async () => {
      const spec = join(dir, "never-up.yaml");
      writeFileSync(
        spec,
        readFileSync(FIXED_SQUAT, "utf8")
          .replace("  start: { phase: up, for: 0.25s }\n", "")
          .replace("enter: knees > 140", "enter: knees > 179"),
      );
      const r = await inProcess(["run", spec, M01]);
      expect(r.stdout).to.match(
        /^note: nothing could be counted: the cycle's first phase 'up' was never entered: knees came nearest at 17\d\.\d \(t=\d+\.\d\ds; it enters at knees > 179\.0\)/m,
      );
      expect(r.stdout).not.to.include("start condition");
      expect(r.stdout).to.match(/^count: 0$/m);
    });

    it("says that counting began late and a repetition before it was not counted", async () => {
      // M01 from t=1.2 s: it begins at the bottom of the first squat, in 'down'.
      const cut = join(dir, "from-the-bottom.jsonl");
      writeFileSync(
        cut,
        readFrames("m01_s01")
          .filter((f) => f.t >= 1.2)
          .map((f) => JSON.stringify(f))
          .join("\n"),
      );
      const spec = join(dir, "no-start.yaml");
      writeFileSync(
        spec,
        readFileSync(FIXED_SQUAT, "utf8").replace("  start: { phase: up, for: 0.25s }\n", ""),
      );
      const r = await inProcess(["run", spec, cut]);
      expect(r.stdout).to.match(
        /^note: counting began at t=\d+\.\d\ds, when the start condition was first met \('up' entered: without 'start', repetitions count once the cycle's first phase is entered\); before it the recording entered 'down' at t=1\.\d\ds: a repetition before then is not counted$/m,
      );
      expect(r.stdout).to.match(/^count: 9$/m);
      // The whole recording starts standing: nothing to say.
      expect((await inProcess(["run", spec, M01])).stdout).not.to.include("note:");
    });

    it("reports rejected lines and goes on", async () => {
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
      const r = await cli(["run", SQUAT, rec]);
      expect(r.code).to.equal(0);
      expect(r.stderr).to.include(`${rec}:2: not valid JSON`);
      expect(r.stderr).to.include("SEQ_NOT_INCREASING");
      expect(r.stderr).to.include("KEYPOINT_COUNT_MISMATCH");
      expect(r.stdout).to.match(/^count: 0$/m);
    });

    it("ends quietly when its output is piped into head", async () => {
      // Enough output (--json, every phase change of ten recordings) to outlast the pipe.
      const { stdout, stderr } = await run(
        "bash",
        [
          "-c",
          `set -o pipefail; "${process.execPath}" --import tsx "${MAIN}" run "${SQUAT}" "${long}" --json | head -n 2; echo "status $?"`,
        ],
        { timeout: 60_000 },
      );
      expect(stdout.trim().split("\n")).to.have.length(3);
      expect(stdout).to.match(/^status 0$/m);
      expect(stderr).to.equal("");
    });

    it("prints events above the progress bar, never through it", async () => {
      // stdout and stderr are the same terminal, as in an interactive shell.
      const screen = new Screen();
      const term = tty(screen);
      const code = await main(["run", SQUAT, long, "--progress"], { stdout: term, stderr: term });
      expect(code).to.equal(0);
      // The bar was drawn, at the start and at the end at least (how often in between depends on
      // the machine's speed: redraws are throttled in time)...
      expect((screen.raw.match(/\] +\d+% \|/g) ?? []).length).to.be.at.least(2);
      // ...yet each event is a line of its own, and the screen shows them in order.
      const lines = screen.text().filter((l) => l !== "");
      const reps = lines.filter((l) => / rep \d+ /.test(l));
      expect(reps).to.have.length(100);
      for (const l of reps) expect(l).to.match(/^t=\d+\.\d\ds seq=\d+ rep \d+ \(/);
      expect(lines.some((l) => l.includes("%") && !l.includes("|"))).to.equal(false);
      expect(lines[lines.length - 1]).to.equal("count: 100");
    });

    it("draws no bar when stderr is not a terminal", async () => {
      const out = sink();
      const err = sink();
      expect(await main(["run", SQUAT, long], { stdout: out, stderr: err })).to.equal(0);
      expect(err.text()).to.equal("");
      expect(out.text()).to.match(/^count: 100$/m);
    });
  });

  describe("extract", () => {
    it("says when the video cannot be read or played, and leaves no file behind", async function () {
      skipUnderFakedClock(this, "Chromium");
      const out = join(dir, "unreadable.jsonl");
      const missing = await inProcess(["extract", join(dir, "nope.mp4"), "-o", out]);
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.match(/^cannot read .*nope\.mp4: ENOENT$/m);
      // A recording is no video: Chromium refuses it, the page says so, nothing is written.
      const notVideo = await inProcess(["extract", M01, "-o", out]);
      expect(notVideo.code).to.equal(1);
      expect(notVideo.stderr).to.match(
        /^extract: .*m01_s01\.jsonl\.gz: .*the browser cannot play this video/m,
      );
      expect(readdirSync(dir).filter((f) => f.startsWith("unreadable"))).to.deep.equal([]);
    });
  });

  describe("validate", () => {
    it("shows issues as file:line:column and names missing reference recordings", async () => {
      const ok = await cli(["validate", join(EXAMPLES, "lunge.yaml")]);
      expect(ok.code).to.equal(0);
      expect(ok.stdout).to.include("ok");
      expect(ok.stderr).to.equal("");
      const bad = join(dir, "bad.yaml");
      writeFileSync(bad, "movespec: 1\nname: x\nsignals:\n  k: angle(hip, knee)\nphases: {}\n");
      const r = await cli(["validate", bad]);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.include(`${bad}:4:6: error ARGUMENT_COUNT`);
      const moved = join(dir, "squat.yaml");
      copyFileSync(SQUAT, moved);
      const m = await cli(["validate", moved]);
      expect(m.code).to.equal(0);
      expect(m.stderr).to.include(
        "reference recording not found: ../../test/fixtures/posedata/uiprmd/m01_s01.jsonl.gz",
      );
      expect(m.stderr).to.include("paths are relative to the MoveSpec file");
    });
  });

  describe("test: a MoveSpec's references as its regression test", () => {
    it("passes on every reference MoveSpec (what CI runs)", async () => {
      const files = readdirSync(EXAMPLES)
        .filter((f) => f.endsWith(".yaml"))
        .map((f) => join(EXAMPLES, f));
      const r = await cli(["test", ...files]);
      expect(r.code, r.stdout + r.stderr).to.equal(0);
      const summary = r.stdout.trim().split("\n").pop()!;
      expect(summary).to.match(
        /^18 reference\(s\) in 5 MoveSpec\(s\): 18 passed, 0 failed; no references in /,
      );
      expect(r.stdout).to.not.include("FAIL");
    });

    it("fails when a count is off, a recording is missing, or the MoveSpec does not load", async () => {
      const spec = join(dir, "off.yaml");
      writeFileSync(
        spec,
        readFileSync(SQUAT, "utf8")
          .replace(/\.\.\/\.\.\/test\/fixtures/g, join(FIXTURES, "..", ".."))
          .replace("m01_s02.jsonl.gz, expected_count: 10", "m01_s02.jsonl.gz, expected_count: 9")
          .replace("m01_s03.jsonl.gz", "m01_s99.jsonl.gz"),
      );
      const r = await cli(["test", spec]);
      expect(r.code).to.equal(1);
      expect(r.stdout).to.match(/ok {3}.*m01_s01\.jsonl\.gz {2}count 10, expected 10/);
      expect(r.stdout).to.match(/FAIL {2}.*m01_s02\.jsonl\.gz {2}count 10, expected 9/);
      expect(r.stdout).to.match(
        /FAIL {2}.*m01_s99\.jsonl\.gz {2}recording not found: .*relative to the MoveSpec file/,
      );
      expect(r.stdout).to.include("3 reference(s) in 1 MoveSpec(s): 1 passed, 2 failed");
      const broken = join(dir, "broken.yaml");
      writeFileSync(broken, "movespec: 1\nname: x\n");
      expect((await cli(["test", broken])).code).to.equal(1);
    });

    it("takes the expected count from the manifest beside a recording, and says --json", async () => {
      const folder = mkdtempSync(join(dir, "manifest-"));
      copyFileSync(M01, join(folder, "m01_s01.jsonl.gz"));
      copyFileSync(join(FIXTURES, "m01_s01.manifest.json"), join(folder, "m01_s01.manifest.json"));
      copyFileSync(join(FIXTURES, "m05_s01.jsonl.gz"), join(folder, "no-manifest.jsonl.gz"));
      const spec = join(folder, "squat.yaml");
      writeFileSync(
        spec,
        readFileSync(SQUAT, "utf8").replace(
          /references:[\s\S]*$/,
          "references:\n  - { recording: m01_s01.jsonl.gz }\n  - { recording: no-manifest.jsonl.gz }\n",
        ),
      );
      const r = await cli(["test", spec, "--json"]);
      expect(r.code).to.equal(1);
      const [result] = r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(result.references[0]).to.include({ expected: 10, count: 10, ok: true });
      expect(result.references[1].ok).to.equal(false);
      expect(result.references[1].problem).to.match(/no expected_count, and no manifest/);
    });
  });

  describe("fit: numbers chosen from labelled recordings", () => {
    /** The shoulder abduction with its raise threshold free, in a folder of its own. */
    const fitSpec = () => {
      const file = join(dir, "abduction.yaml");
      writeFileSync(
        file,
        `${readFileSync(join(EXAMPLES, "shoulder-abduction.yaml"), "utf8").replace(/\nfit:[\s\S]*$/, "\n")}
fit:
  raise: { at: [phases.raised.enter, phases.raised.exit], range: [60, 130], step: 10 }
`,
      );
      return file;
    };
    const uiprmd = (...ids: string[]) => ids.map((id) => join(FIXTURES, `${id}.jsonl.gz`));

    it("writes the fitted MoveSpec beside it and reports the cross-validated figure", async () => {
      const spec = fitSpec();
      const r = await cli([
        "fit",
        spec,
        ...uiprmd("m07_s01", "m07_s02", "m10_s01"),
        "--negative",
        ...uiprmd("m01_s01", "m05_s01"),
        "--folds",
        "3",
      ]);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.match(/: 1 free number\(s\), 5 recording\(s\) in 3 groups, 3 fold\(s\)/);
      expect(r.stdout).to.match(/^exact\s+5\/5 \(100%\)\s+5\/5 \(100%\)\s+5\/5 \(100%\)$/m);
      expect(r.stdout).to.match(/^\s+raise\s+60 \.\. 130 by 10\s+75\s+\d+/m);
      expect(r.stdout).to.match(/^\s+m01_s01\s+negative\s+0\s+0\s+0\s+0\s+\d$/m);
      expect(r.stdout).to.match(/cross-validated: 5 of 5 exact \(100%\)/);
      const written = join(dir, "abduction.fitted.yaml");
      expect(r.stdout).to.include(`wrote ${written}`);
      const before = readFileSync(spec, "utf8").split("\n");
      const changed = readFileSync(written, "utf8")
        .split("\n")
        .filter((l, i) => l !== before[i]);
      // Only the raised phase's two thresholds may have moved, by the same amount.
      for (const line of changed)
        expect(line).to.match(/^\s+(enter: arm_elevation > \d+|exit: arm_elevation < \d+)$/);
    });

    it("fits on the MoveSpec's references when no recording is named, and prints JSON", async () => {
      const spec = join(dir, "references.yaml");
      writeFileSync(
        spec,
        readFileSync(fitSpec(), "utf8")
          .replace(
            "references:\n",
            `references:\n  - { recording: ${join(FIXTURES, "m01_s02.jsonl.gz")}, expected_count: 0 }\n`,
          )
          .replaceAll("../../test/fixtures/posedata/uiprmd/", `${FIXTURES}/`),
      );
      const out = join(dir, "out.yaml");
      const r = await cli(["fit", spec, "--json", "-o", out]);
      expect(r.code, r.stderr).to.equal(0);
      const result = JSON.parse(r.stdout);
      expect(result.written).to.equal(out);
      expect(result.recordings).to.have.length(7);
      expect(result.recordings[0]).to.include({ id: "m01_s02", expected: 0 });
      expect(result.folds).to.have.length(4);
      expect(result.crossValidated.clips).to.equal(7);
      expect(readFileSync(out, "utf8")).to.include("fit:\n  raise:");
    });

    it("says what is wrong: a recording without a manifest, nothing to fit on, a MoveSpec with errors", async () => {
      const bare = join(dir, "bare.jsonl");
      writeFileSync(
        bare,
        readFileSync(join(dir, "long.jsonl"), "utf8").split("\n").slice(0, 50).join("\n"),
      );
      const noManifest = await cli(["fit", fitSpec(), bare]);
      expect(noManifest.code).to.equal(1);
      expect(noManifest.stderr).to.include(
        `${bare}: no manifest beside it (bare.manifest.json) to say its count`,
      );
      writeFileSync(
        join(dir, "bare.manifest.json"),
        JSON.stringify({ expected_repetitions: 1, aspect_ratio: "wide" }),
      );
      const badAspect = await cli(["fit", fitSpec(), bare]);
      expect(badAspect.code).to.equal(1);
      expect(badAspect.stderr).to.include(
        `${join(dir, "bare.manifest.json")}: "aspect_ratio" must be a width / height like 1.778 or "16:9"`,
      );
      const plain = join(dir, "plain.yaml");
      writeFileSync(plain, readFileSync(join(EXAMPLES, "plank.yaml"), "utf8"));
      const nothing = await cli(["fit", plain]);
      expect(nothing.code).to.equal(1);
      expect(nothing.stderr).to.match(/no fit: block, so nothing is free/);
      expect(nothing.stderr).to.match(/no recordings to fit on/);
      const broken = join(dir, "broken.yaml");
      writeFileSync(
        broken,
        `${readFileSync(fitSpec(), "utf8")}  oops: { at: phases.nope.enter, range: [0, 1] }\n`,
      );
      const errors = await cli(["fit", broken, ...uiprmd("m07_s01")]);
      expect(errors.code).to.equal(1);
      expect(errors.stderr).to.match(
        /broken\.yaml:\d+:\d+: error FIT_TARGET_INVALID: fit\.oops\.at: 'phases\.nope\.enter' does not lead anywhere: phases has no 'nope'/,
      );
      const usage = await cli(["fit", fitSpec(), "--folds", "0"]);
      expect(usage.code).to.equal(2);
      expect(usage.stderr).to.match(/--folds <k>.*it must be a whole number, 1 or more/);
    });
  });

  describe("help and usage", () => {
    const options: Record<string, string[]> = {
      validate: ["--json"],
      run: [
        "--json",
        "-v, --verbose",
        "--stats",
        "--plot",
        "--from",
        "--to",
        "--topology",
        "--aspect",
        "--progress",
        "--no-progress",
      ],
      test: ["--json"],
      extract: [
        "-o, --output",
        "--topology",
        "--json",
        "--progress",
        "--no-progress",
        "CHROMIUM_PATH",
      ],
    };
    for (const [command, list] of Object.entries(options)) {
      it(`${command} --help lists every option and the environment variables`, async () => {
        const r = await cli([command, "--help"]);
        expect(r.code).to.equal(0);
        expect(r.stdout).to.include(`Usage: movespec ${command}`);
        for (const o of [...list, "-h, --help"]) expect(r.stdout, o).to.include(o);
        expect(r.stdout).to.include("Environment variables:");
        expect(r.stdout).to.include("Exit codes:");
      });
    }

    it("--help lists the commands", async () => {
      const r = await cli(["--help"]);
      expect(r.code).to.equal(0);
      for (const c of ["validate", "run", "test", "extract"])
        expect(r.stdout).to.match(new RegExp(`^  ${c} `, "m"));
    });

    it("explains wrong usage with exit code 2 and no stack trace", async () => {
      for (const args of [
        ["frobnicate"],
        ["run", SQUAT],
        ["run", SQUAT, M01, "--aspect", "wide"],
        ["run", SQUAT, M01, "--topology", "openpose"],
        ["run", SQUAT, M01, "--jsn"],
        ["extract", M01],
        ["extract", M01, "-o", join(dir, "x.jsonl"), "--topology", "blazepose-33"],
        ["extract", M01, "-o", join(dir, "x.jsonl"), "--model", "posenet"],
      ]) {
        const r = await cli(args);
        expect(r.code, args.join(" ")).to.equal(2);
        expect(r.stderr, args.join(" ")).to.match(/^error: /m);
        expect(r.stderr, args.join(" ")).to.not.match(/\n\s+at /);
      }
      expect((await cli(["run", SQUAT, M01, "--jsn"])).stderr).to.include("(Did you mean --json?)");
      expect((await cli(["run", SQUAT, M01, "--aspect", "wide"])).stderr).to.include("16:9");
      expect(
        (
          await inProcess([
            "extract",
            M01,
            "-o",
            join(dir, "x.jsonl"),
            "--topology",
            "blazepose-33",
          ])
        ).stderr,
      ).to.include("extract makes coco-17 recordings");
      expect(
        (await inProcess(["extract", M01, "-o", join(dir, "x.jsonl"), "--model", "posenet"]))
          .stderr,
      ).to.include("the pose model must be one of movenet-lightning, movenet-thunder");
    });

    it("extract refuses a pose model whose files this machine lacks, instead of finding no pose", () => {
      const installed = installedPoseModels();
      // Lightning ships with @vladmandic/human, a dependency: always there.
      expect(installed).to.include(DEFAULT_POSE_MODEL);
      for (const model of POSE_MODELS) {
        if (installed.includes(model)) expect(parseExtractModel(model)).to.equal(model);
        else
          expect(() => parseExtractModel(model), model).to.throw(
            `the pose model ${model} is not installed here (installed: ${installed.join(", ")})`,
          );
      }
    });
  });
});
