/** The SVG plot of `movespec run --plot`: readable axes, labels that never overlap, small files. */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createEngine, type DetectionEvent, load } from "@movement-detection/movespec";
import {
  columnRanges,
  decimate,
  labelStep,
  niceTicks,
  type PlotSample,
  placeInRows,
  plotSvg,
  spreadLabels,
  textWidth,
} from "@movement-detection/movespec/plot";
import { expect } from "chai";
import { FIXTURES, readFrames } from "./support/recordings.js";

function loadFixture(name: string) {
  const file = join(FIXTURES, "..", "..", "movespecs", `${name}.yaml`);
  const { spec } = load(readFileSync(file, "utf8"));
  if (!spec) throw new Error(`${file} does not load`);
  return spec;
}

const loadFixedSquat = () => loadFixture("squat-fixed-thresholds");

/** A deterministic pseudo-random sequence (no Math.random in tests). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

interface Box {
  text: string;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** The labels an SVG places (class="label"), as boxes. */
function labelBoxes(svg: string): Box[] {
  const out: Box[] = [];
  for (const m of svg.matchAll(
    /<text class="label" x="([\d.]+)" y="([\d.]+)" text-anchor="(middle|end)" font-size="(\d+)"[^>]*>([^<]*)<\/text>/g,
  )) {
    const [, xs, ys, anchor, size, text] = m;
    const w = textWidth(text, Number(size));
    const x = Number(xs);
    const x0 = anchor === "middle" ? x - w / 2 : x - w;
    out.push({ text, x0, x1: x0 + w, y0: Number(ys) - Number(size), y1: Number(ys) });
  }
  return out;
}

function overlaps(boxes: Box[]): string[] {
  const found: string[] = [];
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i];
      const b = boxes[j];
      if (a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1)
        found.push(`'${a.text}' and '${b.text}'`);
    }
  return found;
}

/** A squat session of `seconds`: knees swing every 2.3 s, a repetition each swing. */
function session(seconds: number, partialsEvery = 0) {
  const samples: PlotSample[] = [];
  const events: DetectionEvent[] = [];
  let count = 0;
  for (let i = 0; i <= seconds * 30; i++) {
    const t = i / 30;
    const knees = 125 + 52 * Math.cos((2 * Math.PI * t) / 2.3);
    samples.push({
      t,
      values: { knees, trunk_lean: 2 + Math.sin(t), "left.knee_angle": knees + 3 },
      phases: [knees > 140 ? "up" : knees < 120 ? "down" : ""],
    });
    if (i > 0 && i % 69 === 0) {
      count++;
      if (partialsEvery && count % partialsEvery === 0)
        events.push({
          type: "rep.partial",
          t,
          reason: "too_fast",
          duration: 0.167,
        } as DetectionEvent);
      else events.push({ type: "rep.completed", t, count } as DetectionEvent);
    }
  }
  return { samples, events };
}

/**
 * A real squat through the engine, with adaptive ranges: a frozen copy of the reference squat
 * (test/fixtures/movespecs/squat-adaptive.yaml), so that refitting the reference changes no digest.
 */
function recordedSquat() {
  const engine = createEngine(loadFixture("squat-adaptive"));
  const samples: PlotSample[] = [];
  const events: DetectionEvent[] = [];
  for (const frame of readFrames("m01_s01")) {
    const pushed = engine.push(frame);
    if (!pushed.ok) continue;
    events.push(...pushed.events);
    samples.push({
      t: frame.t,
      values: engine.signalValues(),
      phases: engine.currentPhases(),
      ranges: engine.adaptiveRanges(),
    });
  }
  return { samples, events: [...events, ...engine.finish().events] };
}

const GOLDEN: Record<string, string> = {
  short: "d2c23e681c8fc1ac1378c0548232a6b1052f98b2f68f64e979473440fea5bc3b",
  partials: "35bb951730ecf3d9756ef41fa450cbd12e832ebca247cee9f265503b569894a2",
  long: "98dc10d13e296e2d77cae255f7742bdaa2cc6dadebbe164d791babe5d424484f",
  window: "a9e21f3a00ef9ad5de02eac295cc4b9caed59d5b7664a97e21cfb521efe03ece",
  adaptive: "f0ecb3954a0ed34f78fabe62eb8f3716660a6246510ff4631b7a5ba040ff3767",
  empty: "00f0dee2846d402ffc5c5a998b77bb82229eb49c4bd2e9bdfd46861f38e1a172",
};

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("movespec plot", () => {
  describe("layout", () => {
    it("ticks are round numbers covering the data", () => {
      expect(niceTicks(5.82, 160.17)).to.deep.equal([0, 50, 100, 150, 200]);
      expect(niceTicks(0.13, 0.78)).to.deep.equal([0, 0.2, 0.4, 0.6, 0.8]);
      expect(niceTicks(-0.35, 0.05)).to.deep.equal([-0.4, -0.3, -0.2, -0.1, 0, 0.1]);
      expect(niceTicks(0, 1380, 10)).to.include.members([0, 200, 1200, 1400]);
      expect(niceTicks(7, 7)).to.deep.equal([6, 6.5, 7, 7.5, 8]);
    });

    it("labels in rows never overlap, and a label that does not fit is left out", () => {
      const next = random(7);
      const labels = Array.from({ length: 300 }, () => ({
        at: next() * 1000,
        width: 10 + next() * 60,
      }));
      const rows = placeInRows(labels, 3);
      for (let r = 0; r < 3; r++) {
        const inRow = labels.filter((_, i) => rows[i] === r).sort((a, b) => a.at - b.at);
        for (let k = 1; k < inRow.length; k++)
          expect(inRow[k].at - inRow[k].width / 2).to.be.at.least(
            inRow[k - 1].at + inRow[k - 1].width / 2,
          );
      }
      expect(rows.filter((r) => r < 0).length).to.be.greaterThan(0);
      expect(
        placeInRows(
          [
            { at: 10, width: 8 },
            { at: 50, width: 8 },
          ],
          1,
        ),
      ).to.deep.equal([0, 0]);
    });

    it("labels spread apart keep their spacing and stay in bounds", () => {
      const ys = spreadLabels([50, 51, 52, 53, 200, 10], 12, 20, 190);
      const sorted = [...ys].sort((a, b) => a - b);
      for (let k = 1; k < sorted.length; k++)
        expect(sorted[k] - sorted[k - 1]).to.be.at.least(12 - 1e-9);
      for (const y of ys) expect(y).to.be.within(20, 190);
    });

    it("decimation keeps each column's first, lowest, highest and last point", () => {
      const next = random(3);
      const values = Array.from({ length: 50_000 }, () => next());
      const column = (i: number) => i / 50;
      const keep = decimate(values.length, column, (i) => values[i]);
      expect(keep.length).to.be.at.most(4 * 1000);
      expect([...keep].sort((a, b) => a - b)).to.deep.equal(keep);
      const ranges = columnRanges(values.length, column, (i) => values[i]);
      for (const r of ranges) {
        const kept = keep.filter((i) => Math.floor(column(i)) === r.column).map((i) => values[i]);
        expect(Math.min(...kept)).to.equal(r.min);
        expect(Math.max(...kept)).to.equal(r.max);
      }
    });

    it("numbers every step-th repetition when there are too many", () => {
      expect(labelStep(10, 1100, 20)).to.equal(1);
      expect(labelStep(600, 1100, 20)).to.equal(20);
    });
  });

  describe("the SVG", () => {
    // Fixed thresholds on `knees` (the reference squat counts with adaptive phases on `hips`).
    const spec = loadFixedSquat();

    it("has units, axis titles, round ticks and the phases", () => {
      const { samples, events } = session(23);
      const svg = plotSvg(spec, samples, events, { title: "Squat" });
      expect(svg).to.include(">knees (degrees)</text>");
      expect(svg).to.include(">time (s)</text>");
      expect(svg).to.match(/rotate\(-90[^>]*>degrees<\/text>/);
      const ticks = [...svg.matchAll(/text-anchor="end" fill="#555">([^<]+)<\/text>/g)].map(
        (m) => m[1],
      );
      expect(ticks.length).to.be.greaterThan(6);
      for (const t of ticks) expect(Number(t) % 1 === 0 || /^-?\d+\.\d$/.test(t), t).to.equal(true);
      expect(svg).to.include("phase up");
      expect(svg).to.include("up enter: 140");
      expect(overlaps(labelBoxes(svg))).to.deep.equal([]);
    });

    it("marks partial repetitions with their reason, labels never overlapping", () => {
      const { samples, events } = session(60, 2);
      // Thresholds crowd together on a wide axis, and partials pile up.
      const crowded = [
        ...events,
        ...Array.from(
          { length: 20 },
          (_, i) =>
            ({
              type: "rep.partial",
              t: 30 + i * 0.1,
              reason: "turned_back",
              duration: 1,
            }) as DetectionEvent,
        ),
      ];
      const wide = samples.map((s) => ({
        ...s,
        values: { ...s.values, knees: s.values.knees * (s.t > 59 ? 8 : 1) },
      }));
      const svg = plotSvg(spec, wide, crowded, { title: "Squat" });
      expect(svg).to.include(">too_fast 0.167s</text>");
      expect(svg).to.include(">turned_back</text>");
      expect(svg).to.match(/stroke-dasharray="3,3"/);
      const boxes = labelBoxes(svg);
      expect(
        boxes.filter((b) => b.text.includes("enter") || b.text.includes("exit")),
      ).to.have.length(4);
      expect(overlaps(boxes)).to.deep.equal([]);
      expect(svg).to.match(/label\(s\) left out where they would overlap/);
    });

    it("a 23-minute recording stays small and readable", () => {
      const { samples, events } = session(23 * 60);
      const svg = plotSvg(spec, samples, events, { title: "Squat, 23 minutes" });
      expect(samples.length).to.equal(41_401);
      expect(svg.length).to.be.below(200 * 1024);
      // Each signal is at most two points per pixel column (its range), not 41,401 points.
      for (const m of svg.matchAll(/<path d="(M[^"]*Z)" fill="#/g))
        expect(m[1].split("L").length).to.be.at.most(2 * 1100 + 2);
      expect(svg).to.include("signals drawn as their range");
      expect(svg).to.include("every 50th repetition numbered");
      expect(overlaps(labelBoxes(svg))).to.deep.equal([]);
    });

    it("draws the same bytes as before its drawing was split into parts", () => {
      // Digests of the SVGs, for the cases the tests above draw and a real squat with its adaptive
      // ranges: plotSvg drew these bytes as one long function and draws them in parts. (They last
      // changed when threshold labels took the Studio's spreadLabels: a crowd of labels now moves
      // up from the lowest instead of down from the highest, as far in all.) A change to the
      // drawing that is meant changes them: look at the new SVG, then take its digest here.
      const { samples, events } = session(60, 2);
      const real = recordedSquat();
      const cases: Record<string, string> = {
        short: plotSvg(spec, session(23).samples, session(23).events, { title: "Squat" }),
        partials: plotSvg(spec, samples, events, { title: "Squat" }),
        long: plotSvg(spec, session(23 * 60).samples, session(23 * 60).events, { title: "Long" }),
        window: plotSvg(spec, session(23 * 60).samples, session(23 * 60).events, {
          title: "Window",
          from: 600,
          to: 660,
        }),
        adaptive: plotSvg(loadFixture("squat-adaptive"), real.samples, real.events, {
          title: "m01_s01",
        }),
        empty: plotSvg(spec, [], [], { title: "Nothing" }),
      };
      const digests = Object.fromEntries(
        Object.entries(cases).map(([name, svg]) => [name, sha256(svg)]),
      );
      expect(digests).to.deep.equal(GOLDEN);
    });

    it("--from and --to show a window of the recording", () => {
      const { samples, events } = session(23 * 60);
      const svg = plotSvg(spec, samples, events, { title: "Squat", from: 600, to: 660 });
      expect(svg).to.include("600 s to 660 s");
      expect(svg).to.not.include("drawn as their range");
      const numbers = [...svg.matchAll(/fill="#2ca02c">(\d+)<\/text>/g)].map((m) => Number(m[1]));
      expect(numbers.length).to.be.within(25, 28);
      expect(Math.min(...numbers)).to.be.at.least(260);
    });
  });
});
