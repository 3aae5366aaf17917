import { readFileSync } from "node:fs";
import {
  createEngine,
  type Engine,
  mergeSummary,
  restoreEngine,
  type SessionSummary,
  type SummaryRecords,
} from "@movement-detection/movespec";
import { expect } from "chai";
import { arms, compile, ELBOW_SPEC, hold, oneRep, sequence } from "./support/frames.js";

/**
 * A session as long as the contract allows (4 hours, thousands of repetitions and holds on both
 * sides), taking the records out every 5 s as the detection service does at each checkpoint: the
 * snapshot stays the same size and the final summary is exactly the one an engine that kept
 * everything gives. At 10 fps (144,000 frames, each through two engines): the records grow with
 * the repetitions and holds, which follow the clock, not the frame rate, and 30 fps tripled the
 * suite's longest in-process test (20 s) for nothing more checked.
 */
const FPS = 10;
const HOURS = 4;
const CHECKPOINT_FRAMES = 5 * FPS;

const SPEC = ELBOW_SPEC({
  sides: "both",
  smoothing: "{ one_euro: { min_cutoff: 1.0, beta: 0.05 } }",
  extra: `form:
  - { id: too_deep, when: elbow < 35, during: [closed], message: not so deep, penalty: 20 }
hold:
  phase: closed
  target: 0.4s
  grace: 0s
metrics: [elbow]`,
});

/** Elbow angles at time t: one repetition every `period` seconds, every 7th one deeper. */
function elbow(t: number, period: number): number {
  const rep = Math.floor(t / period);
  const depth = rep % 7 === 3 ? 30 : 45;
  return depth + ((175 - depth) * (1 + Math.cos((2 * Math.PI * t) / period))) / 2;
}

function frame(seq: number) {
  const t = Math.round((seq / FPS) * 1e6) / 1e6;
  return { seq, t, keypoints: arms(elbow(t, 3), elbow(t, 3.3)) };
}

describe("movespec engine: summary records", function () {
  this.timeout(300_000);

  it("keeps its snapshot the same size and gives the whole summary back from the taken records", () => {
    const spec = compile(SPEC);
    const reference = createEngine(spec); // keeps every record, as before
    let engine: Engine = createEngine(spec);
    const taken: SummaryRecords[] = [];
    const sizes: number[] = [];
    const total = HOURS * 3600 * FPS;
    for (let seq = 0; seq < total; seq += 1) {
      const f = frame(seq);
      const a = reference.push(f);
      const b = engine.push(f);
      if (!a.ok || !b.ok) throw new Error(`frame ${seq} rejected`);
      if (a.events.length !== b.events.length)
        throw new Error(`frame ${seq}: ${a.events.length} events against ${b.events.length}`);
      if ((seq + 1) % CHECKPOINT_FRAMES === 0) {
        taken.push(engine.takeRecords());
        const snapshot = JSON.stringify(engine.snapshot());
        sizes.push(snapshot.length);
        // Every hour the session moves to another replica: restored from its checkpoint.
        if ((seq + 1) % (3600 * FPS) === 0) engine = restoreEngine(spec, JSON.parse(snapshot));
      }
    }
    const expected = reference.finish().summary;
    const merged = mergeSummary(engine.finish().summary, taken);
    expect(JSON.stringify(merged)).to.equal(JSON.stringify(expected));

    const checkSummary = (s: SessionSummary) => {
      // A repetition every 3 s on the left, every 3.3 s on the right, all counted.
      expect(s.counts).to.deep.equal({ left: 4800, right: Math.floor(14_400 / 3.3) });
      expect(s.reps).to.have.length(s.count);
      expect(s.score).to.equal(Math.round(s.reps.reduce((n, r) => n + r.score, 0) / s.reps.length));
      expect(s.score).to.be.within(90, 99); // every 7th repetition goes too deep
      expect(s.holds.length).to.be.at.least(s.count);
      expect(s.longest_hold).to.equal(Math.max(...s.holds.map((h) => h.elapsed)));
      expect(s.frames).to.equal(total);
    };
    checkSummary(merged);

    const firstTenMinutes = Math.max(...sizes.slice(0, 120));
    expect(Math.max(...sizes)).to.be.at.most(firstTenMinutes + 64);
    expect(Math.max(...sizes)).to.be.below(8 * 1024);
    // What keeping every record would have cost: the reference's snapshot.
    expect(JSON.stringify(reference.snapshot()).length).to.be.above(100 * Math.max(...sizes));
  });

  it("restores a snapshot of format 1 (records inside, no totals) and ends with the same summary", () => {
    // Made by the engine before the totals existed, 70 frames into this session (both sides
    // have counted repetitions and finished holds; the right one holds an open hold).
    const yaml = ELBOW_SPEC({
      sides: "both",
      extra: "hold:\n  phase: closed\n  target: 0.2s\n  grace: 0s\nmetrics: [elbow]",
    });
    const values = [...oneRep(), ...oneRep(), ...hold(40, 6), ...oneRep(), ...oneRep()];
    const frames = sequence(
      values.map((v, i) => [v, values[(i + 7) % values.length]] as [number, number]),
    );
    const old = JSON.parse(
      readFileSync(
        new URL("../fixtures/movespec/engine-snapshot-format1.json", import.meta.url),
        "utf8",
      ),
    );
    expect(old.format).to.equal("movespec-engine/1");
    const spec = compile(yaml);
    const reference = createEngine(spec);
    const referenceEvents = reference.pushMany(frames).events.slice(old.eventSeq);
    const expected = reference.finish();

    const restored = restoreEngine(spec, old);
    expect(restored.acceptedFrames).to.equal(70);
    const taken = restored.takeRecords(); // what the detection service does at its next checkpoint
    expect(taken.reps).to.have.length(5);
    const events = restored.pushMany(frames.slice(70)).events;
    expect(JSON.stringify(events)).to.equal(JSON.stringify(referenceEvents));
    const { summary } = restored.finish();
    expect(summary.reps.length).to.be.below(expected.summary.reps.length);
    expect(JSON.stringify(mergeSummary(summary, [taken]))).to.equal(
      JSON.stringify(expected.summary),
    );
    expect(expected.summary.score).to.be.a("number");
    expect(expected.summary.longest_hold).to.be.above(0);
  });

  it("lists repetitions by end and holds by start whatever was taken when", () => {
    const spec = compile(SPEC);
    const frames = Array.from({ length: 60 * FPS }, (_, seq) => frame(seq));
    const whole = createEngine(spec);
    whole.pushMany(frames);
    const expected = JSON.stringify(whole.finish().summary);
    for (const every of [1, 7, 301]) {
      const engine = createEngine(spec);
      const taken: SummaryRecords[] = [];
      frames.forEach((f, i) => {
        engine.push(f);
        if (i % every === 0) taken.push(engine.takeRecords());
      });
      const merged = mergeSummary(engine.finish().summary, taken.reverse());
      expect(JSON.stringify(merged), `taken every ${every} frames`).to.equal(expected);
    }
  });
});
