/**
 * The Studio's plot model and draft model in Node (gateway/studio/app/plot/plot-model.ts,
 * draft.ts): what the interactive plot shows of a real run of the squat example over a bundled
 * UI-PRMD recording, label positions that never overlap, and which version holds a text.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { createEngine, load } from "@movement-detection/movespec";
import type { DetectionEvent } from "@movement-detection/movespec/engine";
import type { Version } from "@movement-detection/sdk";
import { expect } from "chai";
import {
  defaultVersionId,
  isDirty,
  type OpenMoveSpec,
  sha256Hex,
  versionHolding,
} from "../../gateway/studio/app/draft.js";
import { labelRoom, plotModel, spreadLabels } from "../../gateway/studio/app/plot/plot-model.js";
import type { RecordedFrame } from "../../gateway/studio/app/recording.js";
import { signalSamples } from "../../gateway/studio/app/signals.js";
import { nearestFrame } from "../../gateway/studio/app/time.js";
import { contentHashOf } from "../../services/authoring/operations/version-operations.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

describe("the Studio's plot model", () => {
  const spec = load(readFileSync(join(ROOT, "examples/movespecs/squat.yaml"), "utf8")).spec;
  const frames = gunzipSync(
    readFileSync(join(ROOT, "test/fixtures/posedata/uiprmd/m01_s01.jsonl.gz")),
  )
    .toString("utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as RecordedFrame);
  if (!spec) throw new Error("the squat example does not load");
  const engine = createEngine(spec, { topology: "blazepose-33" });
  const events: DetectionEvent[] = [];
  for (const frame of frames) {
    const pushed = engine.push(frame as never);
    if (pushed.ok) events.push(...pushed.events);
  }
  const { samples } = signalSamples(spec, frames, "blazepose-33");
  const model = plotModel(spec, samples, events);

  it("shows at first what the phases and rules compare, and the adaptive depth's source", () => {
    expect(model.signals.map((s) => s.key)).to.include.members(["hips", "knees", "depth", "fold"]);
    expect(model.defaults).to.have.members([
      "knees",
      "trunk_lean",
      "fold",
      "depth",
      "depth_peak",
      "hip_off",
      "knee_off",
    ]);
    expect(model.signals.length).to.be.above(model.defaults.length);
  });

  it("has the thresholds, the moving ones on the source's panel, the phases and the repetitions", () => {
    const depth = model.signals.find((s) => s.key === "depth");
    expect(depth?.thresholds.map((t) => t.value).sort()).to.deep.equal([0.3, 0.4, 0.5, 0.6]);
    const fold = model.signals.find((s) => s.key === "fold");
    expect(fold?.moving.map((m) => m.label)).to.have.length(4);
    expect(fold?.range?.lo).to.have.length(model.times.length);
    expect(model.reps.map((r) => r.count)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(model.phases).to.deep.equal(["up", "down"]);
    // Runs follow each other in time, and the down phase comes once per repetition at least.
    for (let i = 1; i < model.runs.length; i++)
      expect(model.runs[i].from).to.be.at.least(model.runs[i - 1].to);
    expect(model.runs.filter((r) => model.phases[r.phase] === "down").length).to.be.at.least(10);
  });

  it("places labels that never overlap: spread within the room, or below it when it is short", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 200; round++) {
      const count = 1 + Math.floor(random() * 8);
      const wanted = Array.from({ length: count }, () => random() * 80);
      const ys = spreadLabels(wanted, 15, 7.5, 64.5);
      const sorted = [...ys].sort((a, b) => a - b);
      for (let i = 1; i < sorted.length; i++)
        expect(sorted[i] - sorted[i - 1]).to.be.at.least(15 - 1e-9);
      expect(sorted[0]).to.be.at.least(7.5);
      // The panel is made tall enough for them (labelRoom): then they stay within it.
      const room = Math.max(72, labelRoom(count, 15, 8));
      const fitted = spreadLabels(wanted, 15, 7.5, room - 7.5);
      expect(Math.max(...fitted)).to.be.at.most(room - 7.5 + 1e-9);
    }
    // One label alone stays where it is wanted.
    expect(spreadLabels([30], 15, 7.5, 64.5)).to.deep.equal([30]);
  });

  it("finds the frame nearest a time", () => {
    expect(nearestFrame([0, 1, 2, 3], 1.4)).to.equal(1);
    expect(nearestFrame([0, 1, 2, 3], 1.6)).to.equal(2);
    expect(nearestFrame([0, 1, 2, 3], -5)).to.equal(0);
    expect(nearestFrame([0, 1, 2, 3], 9)).to.equal(3);
    expect(nearestFrame([], 1)).to.equal(0);
  });
});

describe("the Studio's draft model", () => {
  const version = (n: number, text: string): Version => ({
    movespec_version_id: `0192f0c4-3b7e-7a51-9d3c-00000000000${n}`,
    movespec_id: "0192f0c4-3b7e-7a51-9d3c-6f1e2a4b5c6d",
    version_number: n,
    content_hash: contentHashOf(text),
    created_at: "2026-11-22T10:15:30.123Z",
    yaml_source: text,
  });
  const open = (versions: Version[], released?: string): OpenMoveSpec => ({
    movespec: {
      movespec_id: "0192f0c4-3b7e-7a51-9d3c-6f1e2a4b5c6d",
      project_id: "0192f0c4-3b7e-7a51-9d3c-6f1e2a4b5c6e",
      name: "Squat",
      created_at: "2026-11-22T10:15:30.123Z",
      updated_at: "2026-11-22T10:15:30.123Z",
      visibility: "private",
      ...(released ? { current_released_version_id: released } : {}),
    },
    own: true,
    etag: '"r1"',
    saved: "a: 1\n",
    versions,
  });

  it("matches a text to the version holding it by the service's own content hash", async () => {
    const versions = [version(2, "b: 2\n"), version(1, "a: 1\n")];
    expect(await sha256Hex("a: 1\n")).to.equal(contentHashOf("a: 1\n"));
    expect(versionHolding(versions, await sha256Hex("a: 1\n"))?.version_number).to.equal(1);
    expect(versionHolding(versions, await sha256Hex("c: 3\n"))).to.equal(undefined);
    expect(versionHolding(versions, undefined)).to.equal(undefined);
  });

  it("shows the released version in the picker, else the newest; dirty only when the text differs", () => {
    const versions = [version(2, "b: 2\n"), version(1, "a: 1\n")];
    expect(defaultVersionId(open(versions, versions[1].movespec_version_id))).to.equal(
      versions[1].movespec_version_id,
    );
    expect(defaultVersionId(open(versions))).to.equal(versions[0].movespec_version_id);
    expect(defaultVersionId(open([]))).to.equal(undefined);
    expect(isDirty(open(versions), "a: 1\n")).to.equal(false);
    expect(isDirty(open(versions), "a: 2\n")).to.equal(true);
    expect(isDirty({ ...open(versions), own: false }, "a: 2\n")).to.equal(false);
    expect(isDirty(undefined, "x")).to.equal(false);
  });
});
