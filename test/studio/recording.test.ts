/**
 * The Studio reads recordings in the browser (gateway/studio/app/recording.ts) with web APIs that
 * Node has too (Blob, DecompressionStream, TextDecoder): gzip told by its magic bytes, bad lines
 * named and skipped, frames renumbered, and the size limit at and just past its edge.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { expect } from "chai";
import { readRecording, topologyOf } from "../../gateway/studio/app/recording.js";

const FIXTURE = join(
  import.meta.dirname,
  "..",
  "fixtures",
  "posedata",
  "uiprmd",
  "m01_s01.jsonl.gz",
);

describe("the Studio's recording reader", () => {
  it("reads a gzip-compressed recording whatever its name, and plain JSONL alike", async () => {
    const gz = readFileSync(FIXTURE);
    const plain = gunzipSync(gz);
    const fromGz = await readRecording("squats.jsonl", new Blob([gz]));
    const fromPlain = await readRecording("squats.jsonl.gz", new Blob([plain]));
    expect(fromGz.frames).to.have.length(690);
    expect(fromPlain.frames).to.deep.equal(fromGz.frames);
    expect(fromGz.rejected).to.equal(0);
    expect(topologyOf(fromGz.frames)).to.equal("blazepose-33");
  });

  it("skips and names the lines that are not frames, and numbers the frames from 0", async () => {
    const keypoints = Array.from({ length: 17 }, () => [0.5, 0.5, 0, 1]);
    const lines = [
      JSON.stringify({ seq: 7, t: 0, keypoints }),
      "not json",
      "[1, 2]",
      JSON.stringify({ seq: 9, keypoints }),
      "",
      JSON.stringify({ seq: 11, t: 0.1, keypoints: null }),
      JSON.stringify({ seq: 12, t: 0.2, keypoints: "no" }),
    ];
    const recording = await readRecording("r", new Blob([gzipSync(lines.join("\n"))]));
    expect(recording.frames.map((f) => [f.seq, f.t])).to.deep.equal([
      [0, 0],
      [1, 0.1],
    ]);
    expect(recording.rejected).to.equal(4);
    expect(recording.problems).to.deep.equal([
      "line 2: not JSON",
      "line 3: not a JSON object",
      "line 4: no number `t`",
      "line 7: no `keypoints` array",
    ]);
    expect(topologyOf(recording.frames)).to.equal("coco-17");
  });

  it("refuses a recording one byte past the size limit once decompressed, takes one at it", async () => {
    const plain = gunzipSync(readFileSync(FIXTURE));
    const gz = new Blob([gzipSync(plain)]);
    expect((await readRecording("r", gz, plain.length)).frames).to.have.length(690);
    let error: unknown;
    await readRecording("r", gz, plain.length - 1).catch((e: unknown) => {
      error = e;
    });
    expect(String(error)).to.match(/larger than .* once decompressed/);
  });
});
