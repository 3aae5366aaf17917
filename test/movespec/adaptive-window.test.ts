/**
 * The adaptive window (movespec/engine/program/compile-adaptive.ts) keeps its samples twice, in
 * time order and sorted, and moves both with in-place shifts. Held here against a plain model of
 * what the window must hold (an array of samples, evicted and appended one at a time, sorted
 * afresh at every frame): after every frame, the range the engine reports (`adaptiveRanges`)
 * must be exactly the model's percentiles of the source values the engine computed
 * (`signalValues`), for inputs with ties, gaps longer than the window, more frames a second than
 * the window keeps, and ramps.
 */

import { createEngine, type Engine } from "@movement-detection/movespec";
import { expect } from "chai";
import { arms, compile, seeded } from "./support/frames.js";

/** The engine keeps at most 60 samples a second of window (docs/movespec.md, "Adaptive signals"). */
const SAMPLES_PER_SECOND = 60;
const EPS = 1e-9;
const PERCENTILES = [10, 90] as const;

/**
 * The left elbow angle, unsmoothed, and its adaptive position. The minimum range, 179 degrees,
 * is wider than any input below spans: the range is never wide enough, so settling in never
 * shortens the window and only the window's own rules decide what it holds.
 */
const WINDOW_SPEC = (window: number) => `movespec: 1
name: Adaptive window
sides: left
smoothing: none
signals:
  elbow: angle2d(shoulder, elbow, wrist)
  bend: { adaptive: elbow, rest: high, window: ${window}s, min_range: 179, percentiles: [${PERCENTILES.join(", ")}] }
phases:
  open: { enter: bend < 0.3, exit: bend > 0.4 }
  closed: { enter: bend > 0.6, exit: bend < 0.5 }
repetition:
  cycle: [open, closed, open]
`;

/** What the window must hold, kept the plainest way. */
function modelWindow(window: number) {
  const capacity = Math.ceil(window * SAMPLES_PER_SECOND) + 2;
  const samples: { t: number; x: number }[] = [];
  let lastT = Number.NaN;
  const percentile = (sorted: number[], q: number) => {
    const pos = q * (sorted.length - 1);
    const i = Math.floor(pos);
    const frac = pos - i;
    const a = sorted[i] as number;
    return frac > 0 && i + 1 < sorted.length ? a + frac * ((sorted[i + 1] as number) - a) : a;
  };
  return {
    step(t: number, x: number): { lo: number; hi: number } {
      while (samples.length > 0 && (samples[0] as { t: number }).t < t - window - EPS) {
        samples.shift();
      }
      if (samples.length === 0 || !(t - lastT < 1 / SAMPLES_PER_SECOND - EPS)) {
        if (samples.length === capacity) samples.shift();
        samples.push({ t, x });
        lastT = t;
      }
      const sorted = samples.map((s) => s.x).sort((a, b) => a - b);
      return {
        lo: percentile(sorted, PERCENTILES[0] / 100),
        hi: percentile(sorted, PERCENTILES[1] / 100),
      };
    },
  };
}

interface Input {
  name: string;
  window: number;
  /** Seconds from one frame to the next (above 0: the engine takes only rising times). */
  dt: (rand: () => number, i: number) => number;
  /** The elbow angle at frame i, degrees (kept within 10..170). */
  angle: (rand: () => number, i: number) => number;
}

const INPUTS: Input[] = [
  {
    name: "30 fps, a smooth movement with noise (once full, every frame replaces the oldest)",
    window: 5,
    dt: () => 1 / 30,
    angle: (rand, i) => 90 + 60 * Math.sin(i / 11) + 5 * rand(),
  },
  {
    name: "30 fps, four angles only (ties everywhere)",
    window: 2,
    dt: () => 1 / 30,
    angle: (rand) => 40 + Math.floor(rand() * 4) * 30,
  },
  {
    name: "120 fps with jitter (frames closer than 1/60 s not kept)",
    window: 1,
    dt: (rand) => (0.5 + rand()) / 120,
    angle: (rand) => 10 + rand() * 160,
  },
  {
    name: "exactly 60 fps (the most samples a second the window keeps)",
    window: 1.5,
    dt: () => 1 / 60,
    angle: (rand, i) => 50 + (i % 7) * 10 + rand(),
  },
  {
    name: "bursts of frames and pauses longer than the window",
    window: 1,
    dt: (rand, i) => (i % 97 === 0 ? 1.5 + 2 * rand() : 0.001 + rand() / 15),
    angle: (rand) => (rand() < 0.5 ? 90 : 10 + 160 * rand()),
  },
  {
    name: "a rising then falling ramp (each new value at an end of the sorted order)",
    window: 3,
    dt: () => 1 / 25,
    angle: (_rand, i) => 10 + 0.8 * (i % 400 < 200 ? i % 400 : 400 - (i % 400)),
  },
];

/** The one adaptive signal's range and its source's value, as the engine reports them. */
function readWindow(engine: Engine): { x: number; lo: number; hi: number } {
  const ranges = Object.values(engine.adaptiveRanges());
  const values = engine.signalValues();
  expect(ranges).to.have.length(1);
  return { x: values["left.elbow"] as number, ...(ranges[0] as { lo: number; hi: number }) };
}

describe("movespec engine: the adaptive window", () => {
  for (const input of INPUTS) {
    it(`holds exactly the samples it should: ${input.name}`, () => {
      const engine = createEngine(compile(WINDOW_SPEC(input.window)));
      const model = modelWindow(input.window);
      const rand = seeded(input.name.length);
      let t = 0;
      let wide = 0;
      for (let seq = 0; seq < 3000; seq++) {
        t = Math.round((t + input.dt(rand, seq)) * 1e6) / 1e6;
        const deg = input.angle(rand, seq);
        const pushed = engine.push({ seq, t, keypoints: arms(deg, deg) });
        expect(pushed.ok, `frame ${seq}`).to.equal(true);
        const got = readWindow(engine);
        const want = model.step(t, got.x);
        if (got.lo !== want.lo || got.hi !== want.hi) {
          expect({ frame: seq, t, lo: got.lo, hi: got.hi }).to.deep.equal({
            frame: seq,
            t,
            ...want,
          });
        }
        if (got.hi > got.lo) wide += 1;
      }
      // Not a comparison of empty or flat windows.
      expect(wide).to.be.greaterThan(1000);
    });
  }
});
