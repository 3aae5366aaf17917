/**
 * Adaptive phases: thresholds relative to the range a signal recently took. Synthetic signals
 * drive the left elbow angle exactly (support/frames.ts), so each test sets the situation it
 * names: an amplitude that halves, a drifting baseline, pauses, noise, standing still, one deep
 * repetition among shallow ones, fast repetitions, gaps and jittery frame rates.
 */

import {
  createEngine,
  type DetectionEvent,
  type Engine,
  restoreEngine,
} from "@movement-detection/movespec";
import { expect } from "chai";
import { angleFrames, compile, dips, type Frame, gaussian } from "./support/frames.js";

/** Counts elbow bends relative to the elbow's own recent range (rest: arm straight, high). */
const ADAPTIVE = (
  opts: {
    sides?: string;
    window?: string;
    minRange?: number;
    smoothing?: string;
    percentiles?: string;
  } = {},
) => `movespec: 1
name: Adaptive elbow
sides: ${opts.sides ?? "left"}
smoothing: ${opts.smoothing ?? "{ one_euro: { min_cutoff: 2.0, beta: 0.005 } }"}
signals:
  elbow: angle2d(shoulder, elbow, wrist)
  bend:
    adaptive: elbow
    rest: high
    window: ${opts.window ?? "5s"}
    min_range: ${opts.minRange ?? 20}${opts.percentiles ? `\n    percentiles: ${opts.percentiles}` : ""}
phases:
  open: { enter: bend < 0.3, exit: bend > 0.4, min_dwell: 0.05s }
  closed: { enter: bend > 0.6, exit: bend < 0.5, min_dwell: 0.05s }
repetition:
  cycle: [open, closed, open]
  within: [0.15s, 10s]
metrics: [elbow]
`;

function run(yaml: string, frames: Frame[]): DetectionEvent[] {
  const engine = createEngine(compile(yaml));
  const { events, rejected } = engine.pushMany(frames);
  expect(rejected).to.deep.equal([]);
  return [...events, ...engine.finish().events];
}
const reps = (events: DetectionEvent[]) =>
  events.filter(
    (e): e is Extract<DetectionEvent, { type: "rep.completed" }> => e.type === "rep.completed",
  );
const countOf = (events: DetectionEvent[]) => reps(events).length;

/** `n` repetitions of `depth` degrees from 170, `period` s each, after `rest` s at 170. */
const set =
  (n: number, depth: number, period: number, rest = 1) =>
  (t: number) =>
    t < rest || t >= rest + n * period ? 170 : dips(t - rest, 170, depth, period);

describe("adaptive phases", () => {
  it("count repetitions whose depth nobody set a threshold for, from the first one", () => {
    for (const depth of [30, 60, 120]) {
      const events = run(ADAPTIVE(), angleFrames(set(8, depth, 2), 18));
      expect(countOf(events), `${depth} degrees`).to.equal(8);
    }
  });

  it("keep counting when the amplitude halves mid-recording (after at most one window)", () => {
    const noise = gaussian(1.5);
    const angle = (t: number) => (t < 21 ? set(10, 80, 2)(t) : set(10, 40, 2, 21)(t)) + noise();
    const events = run(ADAPTIVE(), angleFrames(angle, 43));
    const times = reps(events).map((r) => r.t);
    expect(times.filter((t) => t < 21.5)).to.have.length(10);
    // The shallow half: the wide range of the deep half leaves the 5 s window within about
    // two repetitions; every repetition after that counts.
    const shallow = times.filter((t) => t > 21.5);
    expect(shallow.length).to.be.within(8, 10);
    expect(shallow.filter((t) => t > 27)).to.have.length(7);
  });

  it("follow a slow drift of the baseline (the rest position moves 40 degrees)", () => {
    const noise = gaussian(1.5, 11);
    // 20 repetitions of 50 degrees; standing straight drifts from 170 to 130 over 40 s.
    const angle = (t: number) => set(20, 50, 2)(t) - Math.min(40, t) + noise();
    expect(countOf(run(ADAPTIVE(), angleFrames(angle, 42)))).to.equal(20);
  });

  it("count nothing during a long pause and go on afterwards", () => {
    const noise = gaussian(2, 5);
    const angle = (t: number) =>
      (t < 12 ? set(5, 70, 2)(t) : t < 42 ? 170 : set(5, 70, 2, 42)(t)) + noise();
    const events = run(ADAPTIVE(), angleFrames(angle, 55));
    const times = reps(events).map((r) => r.t);
    expect(times).to.have.length(10);
    expect(times.filter((t) => t > 12 && t < 43)).to.deep.equal([]);
    expect(events.filter((e) => e.type === "rep.partial")).to.deep.equal([]);
  });

  it("count nothing on noise alone, even with one-frame glitches", () => {
    const noise = gaussian(4, 17);
    let i = 0;
    const angle = () => 150 + noise() + (++i % 97 === 0 ? 35 : 0);
    const events = run(ADAPTIVE(), angleFrames(angle, 60));
    expect(countOf(events)).to.equal(0);
    expect(events.filter((e) => e.type === "phase.entered").map((e) => e.phase)).to.deep.equal([
      "open",
    ]);
  });

  it("count nothing for a person standing still, and read them as at rest", () => {
    const engine = createEngine(compile(ADAPTIVE()));
    const noise = gaussian(0.3, 2);
    const { events } = engine.pushMany(angleFrames(() => 172 + noise(), 30));
    expect(events.map((e) => e.type)).to.deep.equal(["phase.entered"]);
    expect(engine.signalValues()["left.bend"]).to.equal(0);
    expect(engine.currentPhases()).to.deep.equal(["open"]);
  });

  it("count a single deep repetition after many shallow ones, and the shallow ones after it", () => {
    const noise = gaussian(1, 23);
    const angle = (t: number) =>
      (t < 31 ? set(15, 35, 2)(t) : t < 34 ? set(1, 120, 3, 31)(t) : set(8, 35, 2, 34)(t)) +
      noise();
    const events = run(ADAPTIVE(), angleFrames(angle, 51));
    const r = reps(events);
    expect(r.filter((x) => x.t < 31.5)).to.have.length(15);
    const deep = r.filter((x) => x.t > 31.5 && x.t < 34.5);
    expect(deep).to.have.length(1);
    expect(deep[0].metrics.signals.elbow.min).to.be.below(60);
    // The deep repetition widens the range for one window (5 s): after it, counting goes on.
    const after = r.filter((x) => x.t > 34.5);
    expect(after.length).to.be.within(5, 8);
    expect(after.filter((x) => x.t > 41)).to.have.length(5);
  });

  describe("settling in: the posture a person comes from is not the exercise's rest", () => {
    // 3 s at 176 (arm straight out of the exercise: standing before getting down for push-ups),
    // then repetitions between 130 and 60 that never straighten the arm to 176 again.
    const approach = (t: number) =>
      t < 3 ? 176 : t < 3.5 ? 176 - (t - 3) * 92 : set(6, 70, 1.5, 3.5)(t) - 40;

    it("forgets a rest end not come back to before the first repetition, within 1.5 s", () => {
      const noise = gaussian(1, 37);
      const frames = angleFrames((t) => approach(t) + noise(), 14);
      const engine = createEngine(compile(ADAPTIVE()));
      const events = [...engine.pushMany(frames.filter((f) => f.t < 4.9)).events];
      // The range is wide from 3.5 s (the step down); 1.5 s later the rest end has not been
      // come back to, so the approach leaves the window.
      expect(engine.adaptiveRanges()["left.bend"].hi).to.be.above(175);
      events.push(...engine.pushMany(frames.filter((f) => f.t >= 4.9 && f.t < 5.4)).events);
      expect(engine.adaptiveRanges()["left.bend"].hi).to.be.below(140);
      events.push(...engine.pushMany(frames.filter((f) => f.t >= 6)).events);
      // Without settling in, 176 would stay the rest end until about 8 s (a tenth of the window
      // left): 130 reads 0.4 of 60..176, so the first three repetitions would not count.
      const times = reps(events).map((r) => r.t);
      expect(times.length).to.be.within(5, 6);
      expect(times[0]).to.be.below(7);
    });

    it("keeps the whole window once the first repetition has gone through the range", () => {
      // Four repetitions from 170, then the arm held bent at 100 for 4 s: the rest end (170) is
      // not visited for 4 s, but after a first cycle that is a hold, not an approach.
      const angle = (t: number) => (t < 9 ? set(4, 70, 2)(t) : 100);
      const engine = createEngine(compile(ADAPTIVE()));
      engine.pushMany(angleFrames(angle, 12));
      expect(engine.adaptiveRanges()["left.bend"].hi).to.be.above(160);
    });

    it("still counts a slow first repetition held at the far end, and the ones after it", () => {
      // 1 s at rest, down over 1 s, held at the bottom for 3 s, up; then 5 ordinary ones.
      const first = (t: number) =>
        t < 1 ? 170 : t < 2 ? 170 - 80 * (t - 1) : t < 5 ? 90 : t < 6 ? 90 + 80 * (t - 5) : 170;
      const angle = (t: number) => (t < 7 ? first(t) : set(5, 80, 2, 7)(t));
      const events = run(ADAPTIVE(), angleFrames(angle, 18));
      expect(countOf(events)).to.equal(6);
    });

    it("gives the same events across a snapshot taken while settling in", () => {
      const noise = gaussian(1, 43);
      const frames = angleFrames((t) => approach(t) + noise(), 14);
      const spec = compile(ADAPTIVE());
      const reference = JSON.stringify(run(ADAPTIVE(), frames));
      for (const cut of [80, 110, 140, 170]) {
        const a = createEngine(spec);
        const first = a.pushMany(frames.slice(0, cut)).events;
        const b = restoreEngine(spec, JSON.parse(JSON.stringify(a.snapshot())));
        const rest = [...b.pushMany(frames.slice(cut)).events, ...b.finish().events];
        expect(JSON.stringify([...first, ...rest]), `cut at ${cut}`).to.equal(reference);
      }
    });
  });

  it("count fast repetitions: 1.5 and 2.2 a second", () => {
    for (const period of [1 / 1.5, 1 / 2.2]) {
      const noise = gaussian(1, 29);
      const angle = (t: number) => set(30, 70, period)(t) + noise();
      expect(countOf(run(ADAPTIVE(), angleFrames(angle, 2 + 30 * period))), `${period}`).to.equal(
        30,
      );
    }
  });

  it("count the same at 15, 30, 60 and 120 fps, with dropped frames and jittery timestamps", () => {
    const angle = set(12, 60, 1.5);
    for (const fps of [15, 30, 60, 120]) {
      expect(countOf(run(ADAPTIVE(), angleFrames(angle, 20, { fps }))), `${fps} fps`).to.equal(12);
    }
    const rough = angleFrames(angle, 20, { fps: 30, drop: 0.2, jitter: 0.008, seed: 41 });
    expect(countOf(run(ADAPTIVE(), rough))).to.equal(12);
    // A 1.5 s gap in the stream (no frames at all) in the middle of a set loses at most the
    // repetition it cut, and never counts one twice.
    const gap = angleFrames(angle, 20).filter((f) => f.t < 8 || f.t > 9.5);
    expect(countOf(run(ADAPTIVE(), gap))).to.be.within(11, 12);
  });

  it("keep the window bounded: at most 60 samples a second, whatever the frame rate", () => {
    const angle = set(6, 60, 1.5);
    const stateAfter = (fps: number) => {
      const engine = createEngine(compile(ADAPTIVE()));
      const { events } = engine.pushMany(angleFrames(angle, 12, { fps }));
      expect(countOf(events), `${fps} fps`).to.equal(6);
      return engine.snapshot().state;
    };
    // The state is sized by the window, not by the frames: the same at 30 and 240 fps.
    expect(stateAfter(240).length).to.equal(stateAfter(30).length);
    const long = createEngine(compile(ADAPTIVE({ window: "60s" })));
    long.pushMany(angleFrames(angle, 70, { fps: 120 }));
    // Each sample is kept twice (in time order and sorted) with its time: 3 numbers.
    expect(long.snapshot().state.length).to.be.below(60 * 60 * 3 + 100);
    expect(long.snapshot().state.length).to.be.above(60 * 60 * 3);
  });

  it("give byte-identical events one frame at a time, in batches and across snapshot/restore", () => {
    const noise = gaussian(2, 31);
    const frames = angleFrames(
      (t) => (t < 14 ? set(6, 90, 2)(t) : set(6, 45, 1.5, 14)(t)) + noise(),
      25,
      { drop: 0.05, jitter: 0.005 },
    );
    for (const yaml of [ADAPTIVE(), ADAPTIVE({ sides: "both", window: "3s" })]) {
      const spec = compile(yaml);
      const single = createEngine(spec);
      const one: DetectionEvent[] = [];
      for (const f of frames) {
        const r = single.push(f);
        if (r.ok) one.push(...r.events);
      }
      one.push(...single.finish().events);
      expect(countOf(one)).to.be.greaterThan(8);
      const reference = JSON.stringify(one);
      for (const batch of [2, 7, 64, frames.length]) {
        const engine = createEngine(spec);
        const got: DetectionEvent[] = [];
        for (let i = 0; i < frames.length; i += batch)
          got.push(...engine.pushMany(frames.slice(i, i + batch)).events);
        got.push(...engine.finish().events);
        expect(JSON.stringify(got), `batches of ${batch}`).to.equal(reference);
      }
      for (const cut of [1, 45, 200, 431, frames.length - 1]) {
        const a = createEngine(spec);
        const first = a.pushMany(frames.slice(0, cut)).events;
        const b: Engine = restoreEngine(spec, JSON.parse(JSON.stringify(a.snapshot())));
        const rest = [...b.pushMany(frames.slice(cut)).events, ...b.finish().events];
        expect(JSON.stringify([...first, ...rest]), `cut at ${cut}`).to.equal(reference);
      }
    }
  });

  it("snapshot only the samples a window holds: free slots are zeros, counts the same after restore", () => {
    const noise = gaussian(2, 53);
    const angle = (t: number) => set(10, 80, 1.6)(t) + noise();
    // Both sides (two windows), and one window read at its very ends (the sorted samples' first
    // and last).
    const variants = [
      { yaml: ADAPTIVE({ sides: "both", window: "3s" }), windows: 2 },
      { yaml: ADAPTIVE({ window: "3s", percentiles: "[0, 100]" }), windows: 1 },
    ];
    for (const [fps, { yaml, windows }] of [30, 60].flatMap((fps) =>
      variants.map((variant) => [fps, variant] as const),
    )) {
      const frames = angleFrames(angle, 19, { fps, drop: 0.03, jitter: 0.004, seed: 7 });
      const spec = compile(yaml);
      const whole = createEngine(spec);
      const reference = JSON.stringify([
        ...whole.pushMany(frames).events,
        ...whole.finish().events,
      ]);
      // Cuts every 0.7 s: the window's ring wraps around several times, so its samples sit both
      // in one run and split across the ring's end.
      for (let cut = Math.round(0.7 * fps); cut < frames.length; cut += Math.round(0.7 * fps)) {
        const a = createEngine(spec);
        const first = a.pushMany(frames.slice(0, cut)).events;
        const snapshot = a.snapshot();
        const b = restoreEngine(spec, JSON.parse(JSON.stringify(snapshot)));
        // Every sample the window holds came back: the two engines' states stay equal (their
        // snapshots clear the same free slots) frame after frame, not only their events.
        const restEvents: DetectionEvent[] = [];
        const keptEvents: DetectionEvent[] = [];
        for (let i = cut; i < frames.length; i += 13) {
          restEvents.push(...b.pushMany(frames.slice(i, i + 13)).events);
          keptEvents.push(...a.pushMany(frames.slice(i, i + 13)).events);
          expect(JSON.stringify(b.snapshot()), `${fps} fps, cut at ${cut}, frame ${i}`).to.equal(
            JSON.stringify(a.snapshot()),
          );
        }
        const rest = [...restEvents, ...b.finish().events];
        expect(JSON.stringify([...first, ...rest]), `${fps} fps, cut at ${cut}`).to.equal(
          reference,
        );
        // The engine that was snapshotted keeps its own window (the snapshot clears a copy).
        const kept = [...keptEvents, ...a.finish().events];
        expect(JSON.stringify([...first, ...kept]), `${fps} fps, ${cut}, original`).to.equal(
          reference,
        );
        // Windows of 3 s: 3 x (3 x 60 + 2) numbers each, of which at most the samples of the
        // last 3 s (3 numbers each) and the header are not zero.
        const nonZero = snapshot.state.filter((x) => x !== 0).length;
        expect(nonZero, `${fps} fps, cut at ${cut}`).to.be.at.most(
          windows * (3 * (3 * fps + 2) + 8) + 40,
        );
      }
    }
  });

  it("keep one window per side: each arm is counted against its own range", () => {
    const left = set(6, 90, 2);
    const right = set(4, 30, 3);
    const rightFrames = angleFrames(right, 14);
    const frames = angleFrames(left, 14).map((f) => {
      const kp = rightFrames[f.seq].keypoints;
      // Right arm: keypoints 12, 14, 16 from the second pattern.
      return { ...f, keypoints: f.keypoints.map((p, i) => ([12, 14, 16].includes(i) ? kp[i] : p)) };
    });
    const events = run(ADAPTIVE({ sides: "both" }), frames);
    const summary = events[events.length - 1];
    expect(summary.type === "session.summary" && summary.counts).to.deep.equal({
      left: 6,
      right: 4,
    });
  });

  it("report the range in source units for plots, and 0 until the range is wide enough", () => {
    const engine = createEngine(compile(ADAPTIVE()));
    engine.pushMany(angleFrames(() => 170, 2));
    expect(engine.signalValues()["left.bend"]).to.equal(0);
    expect(engine.adaptiveRanges()["left.bend"].lo).to.be.closeTo(170, 1e-9);
    expect(engine.adaptiveRanges()["left.bend"].hi).to.be.closeTo(170, 1e-9);
    engine.pushMany(angleFrames(set(3, 80, 2, 0), 8, { start: 2 }));
    const { lo, hi } = engine.adaptiveRanges()["left.bend"];
    expect(lo).to.be.within(89, 110);
    expect(hi).to.be.within(168, 170.01);
  });
});
