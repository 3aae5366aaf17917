/**
 * The JSON frame scanner (movespec/engine/scanned-frame.ts): a message it takes reads exactly as
 * JSON.parse reads it, a message it does not take is left to JSON.parse, and the engine answers a
 * scanned frame exactly as it answers the parsed one.
 */

import { createEngine, FrameScanner, ScannedFrame } from "@movement-detection/movespec";
import { expect } from "chai";
import { loadExample, readFrames } from "./support/recordings.js";

type Frame = { seq: number; t: number; keypoints: number[][] | null };

const scanner = new FrameScanner();
const scan = (text: string) => scanner.scan(Buffer.from(text, "utf8"));
const frameText = (f: Frame) => JSON.stringify({ type: "frame", ...f });

/** A deterministic generator (the tests must not change from run to run). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = s;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the scanner read, in JSON.parse's form, for comparison. */
function asParsed(frame: ScannedFrame): Frame {
  const { values, keypointCount: count, valuesPerKeypoint: per } = frame;
  const keypoints =
    values === null
      ? null
      : Array.from({ length: count }, (_, i) =>
          Array.from(values.subarray(i * per, i * per + per)),
        );
  return { seq: frame.seq, t: frame.t, keypoints };
}

/** Object.is on every number: -0 and 0 differ, as they would in the engine. */
function sameNumbers(a: unknown, b: unknown): boolean {
  if (typeof a === "number" || typeof b === "number") return Object.is(a, b);
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => sameNumbers(x, b[i]));
  if (a === null || b === null) return a === b;
  return false;
}

/** When the scanner takes `text`, JSON.parse reads the same frame from it. */
function expectAgreement(text: string): ScannedFrame | undefined {
  const scanned = scan(text);
  if (!scanned) return undefined;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text);
  } catch {
    expect.fail(`scanned a message JSON.parse refuses: ${text}`);
  }
  expect(Object.keys(parsed).sort(), text).to.deep.equal(["keypoints", "seq", "t", "type"]);
  expect(parsed.type, text).to.equal("frame");
  const got = asParsed(scanned);
  expect(sameNumbers(got.seq, parsed.seq), `seq of ${text}`).to.equal(true);
  expect(sameNumbers(got.t, parsed.t), `t of ${text}`).to.equal(true);
  expect(sameNumbers(got.keypoints, parsed.keypoints), `keypoints of ${text}`).to.equal(true);
  return scanned;
}

describe("movespec engine: JSON frames scanned without JSON.parse", () => {
  it("takes every recorded frame and reads exactly what JSON.parse reads", () => {
    for (const id of ["m01_s01", "m04_s01"]) {
      for (const frame of readFrames(id)) {
        expect(expectAgreement(frameText(frame)), `${id} seq ${frame.seq}`).to.be.instanceOf(
          ScannedFrame,
        );
      }
    }
  });

  it("takes the keys in any order, JSON whitespace anywhere, null keypoints and 2 to 4 values", () => {
    const taken = [
      '{"type":"frame","seq":0,"t":0,"keypoints":[[0.5,0.25]]}',
      '{"keypoints":[[1,2,3]],"t":1.5,"seq":7,"type":"frame"}',
      ' \t\r\n{ "seq" : 3 , "type" : "frame" , "t" : 0.1 , "keypoints" : [ [ 1 , -2 , 0.5 , 1 ] , [ 0 , 0 , 0 , 0 ] ] } \n',
      '{"type":"frame","seq":1,"t":2,"keypoints":null}',
      '{"type":"frame","seq":1,"t":2,"keypoints": null }',
      '{"type":"frame","seq":5.0,"t":-0,"keypoints":[[-0.0,0.000001,-12345.678901,9007199254740991]]}',
      '{"type":"frame","seq":2,"t":3,"keypoints":[[1e0,2]]}'.replace("1e0", "1"),
    ];
    for (const text of taken) expect(expectAgreement(text), text).to.be.instanceOf(ScannedFrame);
  });

  it("leaves every other message to JSON.parse", () => {
    const left = [
      "",
      "{}",
      "[]",
      "null",
      '"frame"',
      '{"type":"frame","seq":0,"t":0}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[1,2]],"extra":1}',
      '{"type":"frame","seq":0,"seq":1,"t":0,"keypoints":[[1,2]]}',
      '{"type":"frames","seq":0,"t":0,"keypoints":[[1,2]]}',
      '{"type":"fra\\u006de","seq":0,"t":0,"keypoints":[[1,2]]}',
      '{"typ\\u0065":"frame","seq":0,"t":0,"keypoints":[[1,2]]}',
      '{"type":"frame","seq":"0","t":0,"keypoints":[[1,2]]}',
      '{"type":"frame","seq":null,"t":0,"keypoints":[[1,2]]}',
      '{"type":"frame","seq":0,"t":true,"keypoints":[[1,2]]}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[]}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[1]]}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[1,2,3,4,5]]}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[1,2],[1,2,3]]}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[1,2],]}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[1,2,]]}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[1,"2"]]}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[1,null]]}',
      '{"type":"frame","seq":0,"t":0,"keypoints":{}}',
      '{"type":"frame","seq":0,"t":0,"keypoints":nul}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[1,2]],}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[1,2]]} x',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[1,2]]}{}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[1,2]]',
      '{"type":"frame","seq":01,"t":0,"keypoints":[[1,2]]}',
      '{"type":"frame","seq":+1,"t":0,"keypoints":[[1,2]]}',
      '{"type":"frame","seq":1.,"t":0,"keypoints":[[1,2]]}',
      '{"type":"frame","seq":.5,"t":0,"keypoints":[[1,2]]}',
      '{"type":"frame","seq":-,"t":0,"keypoints":[[1,2]]}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[NaN,2]]}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[Infinity,2]]}',
      // Exactly as JSON.parse reads them, but not the scanner's to read: an exponent, more
      // digits than an exact double holds.
      '{"type":"frame","seq":0,"t":1e2,"keypoints":[[1,2]]}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[1E-7,2]]}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[1e400,2]]}',
      '{"type":"frame","seq":9007199254740993,"t":0,"keypoints":[[1,2]]}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[0.49702125787734985,2]]}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[0.12345678901234567890123,2]]}',
      "\uFEFF" + '{"type":"frame","seq":0,"t":0,"keypoints":[[1,2]]}',
      '{"type":"frame","seq":0,"t":0,"keypoints":[[1,2]]}\u00a0',
    ];
    for (const text of left) expect(scan(text), JSON.stringify(text)).to.equal(undefined);
  });

  it("reads random decimals exactly as JSON.parse, or leaves them to it", () => {
    const next = random(16);
    let taken = 0;
    for (let i = 0; i < 20_000; i++) {
      const digits = 1 + Math.floor(next() * 19);
      let text = "";
      for (let d = 0; d < digits; d++) text += Math.floor(next() * 10);
      const point = Math.floor(next() * (digits + 1));
      let number = text.slice(0, point).replace(/^0+(?=\d)/, "") || "0";
      if (point < digits) number += `.${text.slice(point)}`;
      if (next() < 0.5) number = `-${number}`;
      const message = `{"type":"frame","seq":1,"t":1,"keypoints":[[${number},${number}]]}`;
      if (expectAgreement(message)) taken += 1;
    }
    // Most of them are short enough to be read without JSON.parse.
    expect(taken).to.be.above(10_000);
  });

  it("never takes a mangled message that JSON.parse reads differently", () => {
    const next = random(18);
    const frames = readFrames("m01_s01").slice(0, 40);
    const pieces = ['"', ",", ":", "[", "]", "{", "}", " ", "-", ".", "e", "0", "9", "\\", "n"];
    let taken = 0;
    for (let i = 0; i < 5_000; i++) {
      const frame = frames[i % frames.length];
      let text = frameText({ ...frame, keypoints: frame.keypoints?.slice(0, 3) ?? null });
      for (let edits = 1 + Math.floor(next() * 2); edits > 0; edits--) {
        const at = Math.floor(next() * text.length);
        const roll = next();
        if (roll < 0.4) text = text.slice(0, at) + text.slice(at + 1);
        else if (roll < 0.8)
          text = text.slice(0, at) + pieces[Math.floor(next() * pieces.length)] + text.slice(at);
        else text = text.slice(0, at) + text.slice(at, at + 6) + text.slice(at);
      }
      if (expectAgreement(text)) taken += 1;
    }
    // Some edits keep a valid frame (a space, a digit): those are taken and checked above.
    expect(taken).to.be.above(100);
  });

  it("gets the same events and the same rejections from the engine as the parsed frames", () => {
    const spec = loadExample("squat");
    const frames: Frame[] = readFrames("m01_s01");
    const hostile: Frame[] = [
      { seq: 100_000, t: 10_000, keypoints: frames[0].keypoints?.slice(0, 32) ?? null },
      {
        seq: 100_001,
        t: 10_001,
        keypoints: frames[0].keypoints?.map(() => [2e6, 0, 0, 1]) ?? null,
      },
      { seq: 100_002, t: 9_000, keypoints: frames[0].keypoints },
      { seq: 5, t: 10_002, keypoints: frames[0].keypoints },
      { seq: 100_003, t: 10_003, keypoints: null },
      { seq: 100_004, t: 10_004, keypoints: frames[0].keypoints?.map(([x, y]) => [x, y]) ?? null },
    ];
    const parsedEngine = createEngine(spec);
    const scannedEngine = createEngine(spec);
    let scannedCount = 0;
    for (const frame of [...frames, ...hostile]) {
      const text = frameText(frame);
      const scanned = scan(text);
      if (scanned) scannedCount += 1;
      const expected = parsedEngine.push(JSON.parse(text));
      const got = scannedEngine.push(scanned ?? JSON.parse(text));
      expect(got, `seq ${frame.seq}`).to.deep.equal(expected);
    }
    expect(scannedCount).to.equal(frames.length + hostile.length);
    expect(scannedEngine.finish()).to.deep.equal(parsedEngine.finish());
  });
});
