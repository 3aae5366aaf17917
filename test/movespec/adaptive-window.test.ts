/**
 * The adaptive window (movespec/engine/program/compile-adaptive.ts) keeps its samples twice, in
 * time order and sorted, and moves both with in-place shifts. Held here against a plain model of
 * what the window must hold (an array of samples, evicted and appended one at a time, sorted
 * afresh at every frame): after every frame, the range's ends must be exactly the model's
 * percentiles, for inputs with ties, gaps longer than the window, more frames a second than the
 * window keeps, and windows that fill up.
 */

import { expect } from "chai";
import type { AdaptiveDef } from "../../movespec/compiled-spec.js";
import {
  ADAPTIVE_HI,
  ADAPTIVE_LO,
  compileAdaptive,
} from "../../movespec/engine/program/compile-adaptive.js";
import type { CompileContext } from "../../movespec/engine/program/compile-context.js";
import { allocateMemory, emptyMemory } from "../../movespec/engine/program/memory.js";
import { StateLayout } from "../../movespec/engine/program/state-layout.js";

/** The engine keeps at most 60 samples a second of window (docs/movespec.md, "adaptive"). */
const SAMPLES_PER_SECOND = 60;
const EPS = 1e-9;

/** A window compiled alone, its state allocated; `step` feeds one frame's source value. */
function compiledWindow(def: AdaptiveDef) {
  const memory = emptyMemory();
  const state = new StateLayout();
  let x = 0;
  const ctx: CompileContext = {
    defs: new Map(),
    slotIndex: new Map(),
    points: undefined as unknown as CompileContext["points"],
    state,
    memory,
  };
  const { compute, at } = compileAdaptive(ctx, def, () => x);
  allocateMemory(memory, { keypoints: 0, points: 0, slots: 0, state: state.size });
  for (const init of state.initializers) init(memory.state);
  return {
    step(t: number, value: number): { lo: number; hi: number } {
      memory.t = t;
      x = value;
      compute();
      return { lo: memory.state[at + ADAPTIVE_LO], hi: memory.state[at + ADAPTIVE_HI] };
    },
  };
}

/** What the window must hold, kept the plainest way. */
function modelWindow(window: number, percentiles: readonly [number, number]) {
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
        lo: percentile(sorted, percentiles[0] / 100),
        hi: percentile(sorted, percentiles[1] / 100),
      };
    },
  };
}

/** A deterministic generator (LCG), 0..1. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

interface Input {
  name: string;
  window: number;
  /** Seconds from one frame to the next. */
  dt: (rand: () => number, i: number) => number;
  /** The source's value at frame i. */
  value: (rand: () => number, i: number) => number;
}

const INPUTS: Input[] = [
  {
    name: "30 fps, a smooth signal with noise (every frame replaces the oldest once full)",
    window: 5,
    dt: () => 1 / 30,
    value: (rand, i) => 90 + 60 * Math.sin(i / 11) + 5 * rand(),
  },
  {
    name: "30 fps, few distinct values (ties everywhere)",
    window: 2,
    dt: () => 1 / 30,
    value: (rand) => Math.floor(rand() * 4) * 10,
  },
  {
    name: "120 fps with jitter (frames closer than 1/60 s not kept)",
    window: 1,
    dt: (rand) => (0.5 + rand()) / 120,
    value: (rand) => rand() * 100,
  },
  {
    name: "exactly 60 fps (the most samples a second the window keeps)",
    window: 1.5,
    dt: () => 1 / 60,
    value: (rand, i) => (i % 7) * 3 + rand(),
  },
  {
    name: "gaps: bursts of frames, pauses longer than the window, frames with no time between",
    window: 1,
    dt: (rand, i) => (i % 97 === 0 ? 0.5 + 2 * rand() : i % 13 === 0 ? 0 : rand() / 15),
    value: (rand) => (rand() < 0.5 ? 0 : 100 * rand()),
  },
  {
    name: "a rising then falling ramp (new values at the ends of the sorted order)",
    window: 3,
    dt: () => 1 / 25,
    value: (_rand, i) => (i % 400 < 200 ? i % 400 : 400 - (i % 400)),
  },
];

describe("movespec engine: the adaptive window", () => {
  for (const input of INPUTS) {
    it(`holds exactly the samples it should: ${input.name}`, () => {
      const percentiles = [10, 90] as const;
      // An infinite minimum range: nothing is ever wide enough, so settling in never shortens
      // the window and only the window's own rules decide what it holds.
      const def: AdaptiveDef = {
        rest: "low",
        window: input.window,
        percentiles,
        minRange: Number.POSITIVE_INFINITY,
      };
      const window = compiledWindow(def);
      const model = modelWindow(input.window, percentiles);
      const rand = seeded(input.name.length);
      let t = 0;
      let wide = 0;
      for (let i = 0; i < 3000; i++) {
        t += input.dt(rand, i);
        const x = input.value(rand, i);
        const got = window.step(t, x);
        const want = model.step(t, x);
        if (got.lo !== want.lo || got.hi !== want.hi) {
          expect({ frame: i, t, ...got }).to.deep.equal({ frame: i, t, ...want });
        }
        if (got.hi > got.lo) wide += 1;
      }
      // Not a comparison of empty or flat windows.
      expect(wide).to.be.greaterThan(1000);
    });
  }
});
