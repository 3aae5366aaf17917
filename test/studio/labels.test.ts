/**
 * Labelling in the Studio (gateway/studio/app/labels.ts): marks added and removed on a
 * recording's timeline, the count typed, and the two files saved, read back by the CLI's own
 * loader (movespec/cli/labelled-recordings.ts, what `movespec fit` reads).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readFrames, recordingsAt } from "@movement-detection/movespec/cli";
import { expect } from "chai";
import {
  addSegment,
  expectedCount,
  fileStem,
  fitProblem,
  fitRecordings,
  type Labels,
  labelKey,
  labelsIn,
  labelsText,
  manifestOf,
  recordingJsonl,
  removeSegment,
  withExpected,
  withLabels,
} from "../../gateway/studio/app/labels.js";
import type { Recording } from "../../gateway/studio/app/recording.js";

const keypoints = Array.from({ length: 17 }, (_, i) => [0.4 + i / 100, 0.5, 0, 0.9]);
/** 10 s at 10 frames/s, the 4th frame without a person. */
const recording: Recording = {
  name: "my squats.mp4",
  frames: Array.from({ length: 101 }, (_, i) => ({
    seq: i,
    t: i / 10,
    keypoints: i === 3 ? null : keypoints,
  })),
  problems: [],
  rejected: 0,
  aspectRatio: 16 / 9,
};

describe("the Studio's labels of a recording", () => {
  it("adds marks in time order, whichever way dragged, and removes the one clicked", () => {
    let labels = labelsIn([], recording);
    expect(labels.segments).to.deep.equal([]);
    labels = addSegment(labels, 5, 4);
    labels = addSegment(labels, 1, 2.5);
    labels = addSegment(labels, 7, 8.25);
    expect(labels.segments).to.deep.equal([
      [1, 2.5],
      [4, 5],
      [7, 8.25],
    ]);
    expect(expectedCount(labels)).to.equal(3);
    expect(removeSegment(labels, 1).segments).to.deep.equal([
      [1, 2.5],
      [7, 8.25],
    ]);
    // An index past either end changes nothing.
    expect(removeSegment(labels, 3)).to.equal(labels);
    expect(removeSegment(labels, -1)).to.equal(labels);
  });

  it("replaces the marks a new one overlaps, and ignores one no longer than the minimum", () => {
    let labels: Labels = { key: "k", segments: [] };
    labels = addSegment(labels, 1, 2);
    labels = addSegment(labels, 3, 4);
    labels = addSegment(labels, 6, 7);
    // Touching counts as overlapping: 2 and 3 are inside [2, 3.5].
    expect(addSegment(labels, 2, 3.5).segments).to.deep.equal([
      [2, 3.5],
      [6, 7],
    ]);
    // Exactly the minimum is a click, not a mark; just past it is a mark.
    expect(addSegment(labels, 5, 5.1, 0.1).segments).to.have.length(3);
    expect(addSegment(labels, 5, 5.1001, 0.1).segments).to.have.length(4);
    expect(addSegment(labels, 5, 5)).to.equal(labels);
    expect(addSegment(labels, Number.NaN, 5)).to.equal(labels);
  });

  it("takes a typed count as a whole number from 0, blank for the marks' number", () => {
    const labels = addSegment(labelsIn([], recording), 1, 2);
    const typed = withExpected(labels, " 12 ") as Labels;
    expect(expectedCount(typed)).to.equal(12);
    expect(labelsText(typed)).to.equal(
      "1 repetition marked; the manifest says 12 (the count typed).",
    );
    expect(expectedCount(withExpected(labels, "0") as Labels)).to.equal(0);
    expect(expectedCount(withExpected(typed, "") as Labels)).to.equal(1);
    expect(labelsText(labels)).to.equal("1 repetition marked.");
    for (const bad of ["-1", "2.5", "ten", "1e400"])
      expect(withExpected(labels, bad), bad).to.equal(
        "the expected count is a whole number from 0",
      );
  });

  it("keeps labels to their own recording", () => {
    const labels = addSegment(labelsIn([], recording), 1, 2);
    const list = withLabels([], recording, labels);
    expect(labelsIn(list, recording)).to.equal(labels);
    const other: Recording = { ...recording, name: "other.mp4" };
    expect(labelsIn(list, other).segments).to.deep.equal([]);
    // Labelled again: replaced, not added; with nothing left to say: dropped.
    const again = withLabels(list, recording, addSegment(labels, 4, 5));
    expect(again).to.have.length(1);
    expect(labelsIn(again, recording).segments).to.have.length(2);
    expect(withLabels(again, recording, { key: labels.key, segments: [] })).to.deep.equal([]);
    expect(
      withLabels(again, recording, { key: labels.key, segments: [], expected: 0 }),
    ).to.have.length(1);
    const shorter: Recording = { ...recording, frames: recording.frames.slice(0, 50) };
    expect(labelKey(shorter)).to.not.equal(labelKey(recording));
  });

  it("names the files after the recording, without its extension", () => {
    expect(fileStem("my squats.mp4")).to.equal("my_squats");
    expect(fileStem("m01_s01")).to.equal("m01_s01");
    expect(fileStem("clip.jsonl.gz")).to.equal("clip");
    expect(fileStem("clip.WEBM")).to.equal("clip");
    expect(fileStem(".mp4")).to.equal("recording");
  });

  it("saves a recording and a manifest that the CLI's loader reads back", () => {
    let labels = labelsIn([], recording);
    labels = addSegment(labels, 1.04, 2.51);
    labels = addSegment(labels, 4, 5.5);
    const manifest = manifestOf(recording, labels);
    expect(manifest).to.deep.equal({
      clip_id: "my_squats",
      expected_repetitions: 2,
      rep_segments_seconds: [
        [1.04, 2.51],
        [4, 5.5],
      ],
      rep_segments_frames: [
        [10, 25],
        [40, 55],
      ],
      topology: "coco-17",
      aspect_ratio: 1.778,
    });
    const dir = mkdtempSync(join(tmpdir(), "studio-labels-"));
    try {
      const jsonl = join(dir, `${fileStem(recording.name)}.jsonl`);
      writeFileSync(jsonl, recordingJsonl(recording.frames));
      writeFileSync(join(dir, `${manifest.clip_id}.manifest.json`), JSON.stringify(manifest));
      const [read] = recordingsAt(jsonl);
      expect(read).to.deep.include({
        id: "my_squats",
        expected: 2,
        segments: [
          [1.04, 2.51],
          [4, 5.5],
        ],
        topology: "coco-17",
        aspectRatio: 1.778,
        path: jsonl,
      });
      const { frames, unreadable } = readFrames(jsonl);
      expect(unreadable).to.equal(0);
      expect(frames).to.deep.equal(recording.frames);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("gives Fit the page's labelled recordings, each by a unique name, and says why it cannot run", () => {
    const one = addSegment(labelsIn([], recording), 1, 2);
    const copy: Recording = { ...recording, frames: recording.frames.slice(0, 80) };
    let list = withLabels([], recording, one);
    list = withLabels(list, copy, { ...labelsIn(list, copy), expected: 3 });
    const fit = fitRecordings(list);
    expect(fit.map((r) => [r.id, r.expected, r.segments, r.topology, r.aspectRatio])).to.deep.equal(
      [
        ["my_squats", 1, [[1, 2]], "coco-17", 16 / 9],
        ["my_squats#2", 3, undefined, "coco-17", 16 / 9],
      ],
    );
    expect(fit[0].frames).to.equal(recording.frames);

    const spec = `movespec: 1
name: Arms apart
signals:
  wrists_apart: distance(left_wrist, right_wrist)
phases:
  together: { enter: wrists_apart < 1, exit: wrists_apart > 1.2 }
  apart: { enter: wrists_apart > 2, exit: wrists_apart < 1.8 }
repetition:
  cycle: [together, apart, together]
`;
    expect(fitProblem("movespec: 1\nname: x\n", list)).to.equal(
      "Fix the MoveSpec's errors first (listed under Problems).",
    );
    expect(fitProblem(spec, list)).to.match(
      /^The MoveSpec has no fit: block, so no number is free/,
    );
    const free = `${spec}fit:\n  apart: { at: [phases.apart.enter, phases.apart.exit], range: [1.5, 2.5], step: 0.1 }\n`;
    expect(fitProblem(free, [])).to.match(/^No labelled recording yet/);
    expect(fitProblem(free, list)).to.equal(undefined);
  });
});
