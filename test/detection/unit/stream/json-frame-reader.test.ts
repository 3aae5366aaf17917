import { ScannedFrame } from "@movement-detection/movespec";
import { expect } from "chai";
import {
  JsonFrameReader,
  MISSES_TO_PAUSE,
  PAUSE_MESSAGES,
} from "../../../../services/detection/stream/json-frame-reader.js";

const short = Buffer.from('{"type":"frame","seq":1,"t":0.5,"keypoints":[[0.25,0.5,0,0.9]]}');
/** Valid JSON the scanner leaves to JSON.parse (17 digits). */
const long = Buffer.from(
  '{"type":"frame","seq":1,"t":0.5,"keypoints":[[0.49702125787734985,0.5,0,0.9]]}',
);

describe("detection JsonFrameReader", () => {
  it("scans every message it can", () => {
    const reader = new JsonFrameReader();
    for (let i = 0; i < 3 * PAUSE_MESSAGES; i++)
      expect(reader.read(short)).to.be.instanceOf(ScannedFrame);
  });

  it("a miss in between does not pause it", () => {
    const reader = new JsonFrameReader();
    for (let i = 0; i < 10 * MISSES_TO_PAUSE; i++) {
      const message = i % MISSES_TO_PAUSE === MISSES_TO_PAUSE - 1 ? short : long;
      const read = reader.read(message);
      if (message === short) expect(read, `message ${i}`).to.be.instanceOf(ScannedFrame);
      else expect(read).to.equal(undefined);
    }
  });

  it(`stops trying after ${MISSES_TO_PAUSE} misses in a row, for ${PAUSE_MESSAGES} messages`, () => {
    const reader = new JsonFrameReader();
    for (let i = 0; i < MISSES_TO_PAUSE; i++) expect(reader.read(long)).to.equal(undefined);
    for (let i = 0; i < PAUSE_MESSAGES; i++)
      expect(reader.read(short), `paused message ${i}`).to.equal(undefined);
    expect(reader.read(short)).to.be.instanceOf(ScannedFrame);
  });

  it(`pauses again after ${MISSES_TO_PAUSE} more misses, not before`, () => {
    const reader = new JsonFrameReader();
    for (let i = 0; i < MISSES_TO_PAUSE + PAUSE_MESSAGES; i++) reader.read(long);
    for (let i = 0; i < MISSES_TO_PAUSE - 1; i++) reader.read(long);
    expect(reader.read(short)).to.be.instanceOf(ScannedFrame);
  });
});
