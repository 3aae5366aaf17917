/** How counts are scored (movespec/fit/scoring.ts), on made-up counts. */

import {
  type ClipScore,
  fnv1a,
  insideWindow,
  isExact,
  isWithinOne,
  matchRepetitions,
  tally,
} from "@movement-detection/movespec/fit";
import { expect } from "chai";

describe("count scoring", () => {
  describe("insideWindow", () => {
    it("allows a quarter of the segment after its end", () => {
      expect(insideWindow([10, 12])).to.deep.equal([9.998, 12.5]);
    });

    it("allows at least 0.2 s after a short segment and at most 1 s after a long one", () => {
      expect(insideWindow([1, 1.4])[1]).to.be.closeTo(1.6, 1e-9);
      expect(insideWindow([0, 8])[1]).to.equal(9);
    });
  });

  describe("matchRepetitions", () => {
    const segments: [number, number][] = [
      [0, 2],
      [2, 4],
      [4, 6],
    ];

    it("matches one repetition reported in each segment", () => {
      const m = matchRepetitions([1.5, 3.9, 5.2], segments);
      expect(m.inside).to.equal(3);
      expect(m.segmentOf).to.deep.equal([0, 1, 2]);
    });

    it("takes a repetition reported just after its segment's end for that segment", () => {
      // 2.3 s is inside segment 1 too, but segment 0's window closes first.
      const m = matchRepetitions([2.3, 3.8], segments);
      expect(m.segmentOf).to.deep.equal([0, 1]);
      expect(m.inside).to.equal(2);
    });

    it("does not match a repetition reported too late after the last segment", () => {
      expect(matchRepetitions([6.6], segments).inside).to.equal(0);
      expect(matchRepetitions([6.49], segments).inside).to.equal(1);
    });

    it("does not match a repetition before the first segment", () => {
      expect(matchRepetitions([-0.5], segments).segmentOf).to.deep.equal([-1]);
    });

    it("lets each segment take one repetition: a double count is not inside twice", () => {
      const m = matchRepetitions([0.8, 1.6, 3.5], segments);
      expect(m.segmentOf).to.deep.equal([0, -1, 1]);
      expect(m.inside).to.equal(2);
    });

    it("does not let a double count steal the next segment's repetition", () => {
      // 1.0 and 1.9 both fall in segment 0; 1.9 is not inside segment 1's window start (2 s).
      const m = matchRepetitions([1.0, 1.9, 3.0, 5.0], segments);
      expect(m.inside).to.equal(3);
      expect(m.segmentOf).to.deep.equal([0, -1, 1, 2]);
    });

    it("matches in time order whatever the order given", () => {
      const m = matchRepetitions([5.2, 1.5, 3.9], segments);
      expect(m.segmentOf).to.deep.equal([2, 0, 1]);
    });

    it("matches nothing without repetitions or without segments", () => {
      expect(matchRepetitions([], segments).inside).to.equal(0);
      expect(matchRepetitions([1, 2], []).inside).to.equal(0);
    });
  });

  describe("tally", () => {
    it("counts exact and within-one clips and the mean absolute errors", () => {
      const clips: ClipScore[] = [
        { expected: 10, counted: 10, inside: 10 },
        { expected: 10, counted: 11, inside: 10 },
        { expected: 4, counted: 2 },
        { expected: 20, counted: 12, inside: 11 },
      ];
      const t = tally(clips);
      expect(t).to.include({ clips: 4, missing: 0, exact: 1, withinOne: 2 });
      expect(t.mae).to.equal((0 + 1 + 2 + 8) / 4);
      expect(t.relativeMae).to.be.closeTo((0 + 0.1 + 0.5 + 0.4) / 4, 1e-12);
      // The boundary columns cover only clips with segments.
      expect(t).to.include({ withSegments: 3, counted: 33, inside: 31 });
    });

    it("scores a clip without a MoveSpec as a miss, even when 0 would be within one", () => {
      const miss: ClipScore = { expected: 1 };
      expect(isExact(miss)).to.equal(false);
      expect(isWithinOne(miss)).to.equal(false);
      expect(isWithinOne({ expected: 1, counted: 0 })).to.equal(true);
      const t = tally([miss, { expected: 6 }]);
      expect(t).to.include({ clips: 2, missing: 2, exact: 0, withinOne: 0, mae: 3.5 });
      expect(t.relativeMae).to.equal(1);
    });

    it("is all zero for no clips", () => {
      expect(tally([])).to.include({ clips: 0, exact: 0, mae: 0 });
    });
  });

  describe("fnv1a", () => {
    it("hashes ids with FNV-1a (32 bits)", () => {
      expect(fnv1a("")).to.equal(0x811c9dc5);
      expect(fnv1a("a")).to.equal(0xe40c292c);
      expect(fnv1a("foobar")).to.equal(0xbf9cf968);
    });
  });
});
