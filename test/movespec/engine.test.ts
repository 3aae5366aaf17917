import {
  createEngine,
  type DetectionEvent,
  load,
  restoreEngine,
  supportsTopology,
} from "@movement-detection/movespec";
import { expect } from "chai";
import {
  arms,
  both,
  compile,
  ELBOW_SPEC,
  type Frame,
  hold,
  oneRep,
  ramp,
  sequence,
} from "./support/frames.js";
import { loadExample } from "./support/recordings.js";
import { render } from "./support/synthetic.js";

function run(
  yaml: string,
  frames: unknown[],
  options = {},
): { events: DetectionEvent[]; all: DetectionEvent[] } {
  const engine = createEngine(compile(yaml), options);
  const { events, rejected } = engine.pushMany(frames);
  expect(rejected).to.deep.equal([]);
  return { events, all: [...events, ...engine.finish().events] };
}
const ofType = <T extends DetectionEvent["type"]>(events: DetectionEvent[], type: T) =>
  events.filter((e): e is Extract<DetectionEvent, { type: T }> => e.type === type);

describe("movespec engine", () => {
  describe("repetitions", () => {
    it("counts a cycle and reports duration, tempo, time per phase and signal extremes", () => {
      const { events } = run(ELBOW_SPEC(), both([...oneRep(), ...oneRep()]));
      const reps = ofType(events, "rep.completed");
      expect(reps.map((r) => r.count)).to.deep.equal([1, 2]);
      const [first] = reps;
      expect(first.side).to.equal("left");
      expect(first.start_t).to.be.within(0.5, 0.8);
      expect(first.end_t).to.be.within(1.7, 2.2);
      expect(first.metrics.tempo).to.have.length(2);
      expect(first.metrics.tempo[0] + first.metrics.tempo[1]).to.be.closeTo(
        first.metrics.duration,
        1e-6,
      );
      expect(first.metrics.phase_time.closed).to.be.within(0.2, 0.6);
      expect(first.metrics.signals.elbow.min).to.be.closeTo(40, 0.01);
      // The range of motion runs from the rest before the repetition to its deepest point.
      expect(first.metrics.signals.elbow.max).to.be.closeTo(170, 0.01);
      expect(first.metrics.signals.elbow.range).to.be.closeTo(130, 0.01);
      expect(first.score).to.equal(100);
      expect(first.values).to.have.property("elbow");
    });

    it("never double-counts a signal hovering at a threshold", () => {
      // Noise of +-4 degrees around both the enter and the exit thresholds, for seconds.
      const hover = (center: number) =>
        Array.from({ length: 20 }, (_, i) => center + (i % 2 === 0 ? 4 : -4) * ((i % 5) / 4));
      const values = [
        ...hold(170, 5),
        ...hover(150),
        ...hover(140),
        ...ramp(140, 40, 5),
        ...hover(60),
        ...hover(70),
        ...hover(60),
        ...ramp(60, 170, 5),
        ...hover(150),
      ];
      const { events } = run(ELBOW_SPEC(), both(values, 30));
      expect(ofType(events, "rep.completed")).to.have.length(1);
      // Each phase is entered once per visit, however long the signal hovers.
      expect(ofType(events, "phase.entered").map((e) => e.phase)).to.deep.equal([
        "open",
        "closed",
        "open",
      ]);
    });

    it("ignores a spike shorter than the phase's minimum dwell", () => {
      const yaml = ELBOW_SPEC().replace(
        "enter: elbow < 60\n    exit: elbow > 70\n    min_dwell: 0",
        "enter: elbow < 60\n    exit: elbow > 70\n    min_dwell: 0.25s",
      );
      const spike = [...hold(170, 5), 50, 50, ...hold(170, 5)];
      expect(ofType(run(yaml, both(spike)).events, "rep.completed")).to.have.length(0);
      const real = [...hold(170, 5), ...hold(50, 4), ...hold(170, 5)];
      expect(ofType(run(yaml, both(real)).events, "rep.completed")).to.have.length(1);
    });

    it("does not count while getting into position (start condition)", () => {
      const yaml = ELBOW_SPEC({
        repetition: "repetition:\n  cycle: [open, closed, open]\n  start: { phase: open, for: 1s }",
      });
      // Straight into a repetition after 0.5 s in `open`: not counted; after resting 1 s: counted.
      const values = [
        ...hold(170, 5),
        ...ramp(170, 40, 5),
        ...ramp(40, 170, 5),
        ...hold(170, 12),
        ...ramp(170, 40, 5),
        ...ramp(40, 170, 5),
        ...hold(170, 3),
      ];
      const reps = ofType(run(yaml, both(values)).events, "rep.completed");
      expect(reps).to.have.length(1);
      expect(reps[0].start_t).to.be.greaterThan(2);
    });

    it("reports too fast and too slow cycles as partial, not counted", () => {
      const fast = ELBOW_SPEC({
        repetition: "repetition:\n  cycle: [open, closed, open]\n  within: [2s, 10s]",
      });
      const r1 = run(fast, both([...hold(170, 3), 40, 40, 170, 170]));
      expect(ofType(r1.events, "rep.completed")).to.have.length(0);
      expect(ofType(r1.events, "rep.partial").map((p) => p.reason)).to.deep.equal(["too_fast"]);
      // The event says by how much: its duration and the bound it broke.
      expect(ofType(r1.events, "rep.partial")[0]).to.include({ limit: 2 });
      expect(ofType(r1.events, "rep.partial")[0].duration).to.be.below(2);
      const slow = ELBOW_SPEC({
        repetition: "repetition:\n  cycle: [open, closed, open]\n  within: [0.1s, 1s]",
      });
      const r2 = run(slow, both([...hold(170, 3), ...hold(40, 20), ...hold(170, 3)]));
      expect(ofType(r2.events, "rep.partial").map((p) => p.reason)).to.deep.equal(["timeout"]);
      expect(ofType(r2.events, "rep.partial")[0]).to.include({ limit: 1 });
      expect(ofType(r2.events, "rep.completed")).to.have.length(0);
    });

    it("reports a repetition that turned back before its target as partial, with progress", () => {
      const { events } = run(
        ELBOW_SPEC(),
        both([...hold(170, 5), ...ramp(170, 100, 6), ...ramp(100, 170, 6), ...hold(170, 5)]),
      );
      const partials = ofType(events, "rep.partial");
      expect(partials).to.have.length(1);
      expect(partials[0].reason).to.equal("turned_back");
      // From the exit of `open` (140) towards the enter of `closed` (60): 140 -> 100 is half way.
      expect(partials[0].progress).to.be.closeTo(0.5, 0.01);
      expect(partials[0].reached).to.deep.equal([]);
      expect(ofType(events, "rep.completed")).to.have.length(0);
    });

    it("does not report a small wobble out of the start phase as a partial", () => {
      const { events } = run(
        ELBOW_SPEC(),
        both([...hold(170, 5), 138, 136, 145, 160, ...hold(170, 5)]),
      );
      expect(ofType(events, "rep.partial")).to.have.length(0);
    });

    it("counts open cycles ([closed, open]) each time the last phase is reached", () => {
      const yaml = ELBOW_SPEC({
        repetition: "repetition:\n  cycle: [closed, open]\n  within: { max: 5s }",
      });
      // Starts in `open`: the first rise only after being in `closed` counts.
      const values = [
        ...hold(170, 5),
        ...hold(40, 5),
        ...hold(170, 5),
        ...hold(40, 5),
        ...hold(170, 5),
      ];
      expect(ofType(run(yaml, both(values)).events, "rep.completed")).to.have.length(2);
    });
    it("open cycles have no minimum duration by default; closed cycles keep theirs", () => {
      // The move from `closed` to `open` takes one frame: an open cycle times only that move.
      const values = [...hold(40, 10), ...hold(170, 10), ...hold(40, 10), ...hold(170, 10)];
      const open = run(
        ELBOW_SPEC({ repetition: "repetition:\n  cycle: [closed, open]" }),
        both(values),
      );
      expect(
        compile(ELBOW_SPEC({ repetition: "repetition:\n  cycle: [closed, open]" })).repetition
          ?.minDuration,
      ).to.equal(0);
      expect(ofType(open.events, "rep.completed")).to.have.length(2);
      expect(ofType(open.events, "rep.partial")).to.deep.equal([]);
      const closed = compile(
        ELBOW_SPEC({ repetition: "repetition:\n  cycle: [closed, open, closed]" }),
      );
      expect(closed.repetition?.minDuration).to.equal(0.3);
    });
  });

  describe("holds", () => {
    const HOLD = ELBOW_SPEC({
      repetition: "hold:\n  phase: closed\n  target: 3s\n  grace: 0.5s\n  progress_every: 1s",
      phases: undefined,
    }).replace("  open:\n    enter: elbow > 150\n    exit: elbow < 140\n    min_dwell: 0\n", "");

    it("starts, reports progress, completes, and forgives breaks shorter than the grace period", () => {
      const values = [
        ...hold(170, 3),
        ...hold(40, 12),
        100,
        100,
        100,
        ...hold(40, 20),
        ...hold(170, 10),
      ];
      const { events, all } = run(HOLD, both(values));
      expect(events.filter((e) => e.type.startsWith("hold.")).map((e) => e.type)).to.deep.equal([
        "hold.started",
        "hold.progress",
        "hold.progress",
        "hold.completed",
      ]);
      const summary = ofType(all, "session.summary")[0];
      expect(summary.holds).to.have.length(1);
      expect(summary.holds[0].completed).to.equal(true);
      expect(summary.longest_hold).to.be.greaterThan(3);
    });

    it("breaks with reason tracking_lost when the person disappears, and reports an open hold at the end", () => {
      const hidden = { left: 0, right: 1 };
      const frames = sequence([
        ...hold(170, 3).map((v) => [v, 170] as [number, number]),
        ...hold(40, 12).map((v) => [v, 170] as [number, number]),
        ...hold(40, 10).map((v) => [v, 170, hidden] as [number, number, typeof hidden]),
        ...hold(40, 12).map((v) => [v, 170] as [number, number]),
      ]);
      const { events, all } = run(HOLD, frames);
      expect(ofType(events, "hold.broken").map((e) => e.reason)).to.deep.equal(["tracking_lost"]);
      const holds = ofType(all, "session.summary")[0].holds;
      expect(holds.map((h) => h.completed)).to.deep.equal([false, false]);
      expect(holds[1].elapsed).to.be.closeTo(1.1, 0.01);
    });

    it("breaks when the phase is left for longer than the grace period", () => {
      const { events } = run(HOLD, both([...hold(170, 3), ...hold(40, 15), ...hold(170, 10)]));
      const broken = ofType(events, "hold.broken");
      expect(broken).to.have.length(1);
      expect(broken[0].reason).to.equal("left_phase");
      expect(broken[0].elapsed).to.be.closeTo(1.4, 0.01);
    });
  });

  describe("form rules", () => {
    const FORM = (rule: string) =>
      ELBOW_SPEC({
        extra: `signals_extra: 0`.replace("signals_extra: 0", "") + `form:\n${rule}`,
      }).replace(
        "  elbow: angle2d(shoulder, elbow, wrist)",
        "  elbow: angle2d(shoulder, elbow, wrist)\n  other: angle2d(right_shoulder, right_elbow, right_wrist)",
      );

    it("reports a violation with its values, once per cooldown, and lowers the score", () => {
      const yaml = FORM(
        "  - id: right_arm_bent\n    when: other < 120\n    during: rep\n    severity: warning\n    message: Keep the other arm straight.\n    cooldown: 10s",
      );
      const frames = sequence(
        oneRep().map((v, i) => [v, i > 6 && i < 20 ? 90 : 175] as [number, number]),
      );
      const { events } = run(yaml, frames);
      const violations = ofType(events, "form.violation");
      expect(violations).to.have.length(1);
      expect(violations[0]).to.include({
        rule: "right_arm_bent",
        severity: "warning",
        message: "Keep the other arm straight.",
        rep: 1,
      });
      expect(violations[0].values.other).to.be.closeTo(90, 0.01);
      const rep = ofType(events, "rep.completed")[0];
      expect(rep.violations).to.deep.equal(["right_arm_bent"]);
      expect(rep.score).to.equal(85);
    });

    it("a fault within its cooldown still costs the repetition it happens in (only events wait)", () => {
      // The first repetition's fault starts the 10 s cooldown; the second's falls inside it: no
      // second event, but the second repetition is penalised and, with voids_rep, not counted.
      const rule = (voids: boolean) =>
        FORM(
          `  - id: right_arm_bent\n    when: other < 120\n    during: rep\n    message: m\n    cooldown: 10s\n    voids_rep: ${voids}`,
        );
      const faulty = oneRep().map((v, i) => [v, i > 6 && i < 20 ? 90 : 175] as [number, number]);
      const frames = sequence([...faulty, ...faulty]);
      const penalised = run(rule(false), frames).events;
      expect(ofType(penalised, "form.violation")).to.have.length(1);
      expect(ofType(penalised, "rep.completed").map((r) => [r.score, r.violations])).to.deep.equal([
        [85, ["right_arm_bent"]],
        [85, ["right_arm_bent"]],
      ]);
      const voided = run(rule(true), frames).events;
      expect(ofType(voided, "rep.completed")).to.have.length(0);
      expect(ofType(voided, "rep.partial").map((p) => p.reason)).to.deep.equal([
        "voided",
        "voided",
      ]);
    });

    it("applies only in its phases and after its minimum duration", () => {
      const yaml = FORM(
        "  - id: r\n    when: other < 120\n    during: [closed]\n    message: m\n    for: 0.3s",
      );
      const short = sequence(
        oneRep().map((v, i) => [v, i >= 14 && i < 16 ? 90 : 175] as [number, number]),
      );
      expect(ofType(run(yaml, short).events, "form.violation")).to.have.length(0);
      const outside = sequence(oneRep().map((v, i) => [v, i < 5 ? 90 : 175] as [number, number]));
      expect(ofType(run(yaml, outside).events, "form.violation")).to.have.length(0);
    });

    it("`for` counts the time the fault was seen: not a tracking loss, though a blink counts", () => {
      const yaml = FORM(
        "  - id: r\n    when: other < 120\n    during: always\n    message: m\n    for: 2s",
      );
      const seen = { left: 1, right: 1 };
      const hidden = { left: 0.1, right: 1 };
      type Angles = [number, number, { left: number; right: number }];
      const fault = (n: number, visibility = seen) =>
        Array.from({ length: n }, () => [170, 90, visibility] as Angles);
      // 0.5 s of the fault, lost for 5 s, seen again for 1.5 s: 2 s in all, but not in a row.
      const lost = sequence([...fault(5), ...fault(50, hidden), ...fault(15)]);
      const lostEvents = run(yaml, lost).events;
      expect(ofType(lostEvents, "tracking.lost")).to.have.length(1);
      expect(ofType(lostEvents, "form.violation")).to.have.length(0);
      // Seen for 2 s after the loss: reported.
      const after = sequence([...fault(5), ...fault(50, hidden), ...fault(21)]);
      expect(ofType(run(yaml, after).events, "form.violation")).to.have.length(1);
      // One hidden frame (0.1 s, no loss) in 2.1 s of the fault does not restart the clock.
      const blink = sequence([...fault(10), ...fault(1, hidden), ...fault(11)]);
      expect(ofType(run(yaml, blink).events, "form.violation")).to.have.length(1);
    });

    it("visibility() is read below the visibility threshold: a rule on a landmark going out of sight", () => {
      const yaml = ELBOW_SPEC({
        extra:
          "tracking:\n  landmarks: [shoulder, elbow]\nform:\n  - id: wrist_hidden\n    when: wv < 0.3\n    during: always\n    message: Keep your wrist in view.\n    for: 1s\n",
      }).replace(
        "  elbow: angle2d(shoulder, elbow, wrist)",
        "  elbow: angle2d(shoulder, elbow, wrist)\n  wv: visibility(wrist)",
      );
      const engine = createEngine(compile(yaml));
      const frames = sequence(Array.from({ length: 30 }, () => [170, 170] as [number, number])).map(
        (frame) => ({
          ...frame,
          // The left wrist barely visible; shoulder and elbow (the tracking gate) fully.
          keypoints: frame.keypoints.map((point, i) =>
            i === 15 ? [...point.slice(0, 3), 0.1] : point,
          ),
        }),
      );
      const events = frames.flatMap((frame) => {
        const result = engine.push(frame);
        return result.ok ? result.events : [];
      });
      expect(engine.signalValues()["left.wv"]).to.be.closeTo(0.1, 1e-9);
      expect(ofType(events, "form.violation").map((v) => v.rule)).to.deep.equal(["wrist_hidden"]);
    });

    it("voids the repetition when the rule says so", () => {
      const yaml = FORM("  - id: r\n    when: other < 120\n    message: m\n    voids_rep: true");
      const frames = sequence(oneRep().map((v, i) => [v, i === 10 ? 90 : 175] as [number, number]));
      const { events } = run(yaml, frames);
      expect(ofType(events, "rep.completed")).to.have.length(0);
      expect(ofType(events, "rep.partial").map((p) => p.reason)).to.deep.equal(["voided"]);
    });
  });

  describe("tracking", () => {
    const hidden = { left: 0.1, right: 1 };
    const withGap = (gapFrames: number) =>
      sequence([
        ...hold(170, 5).map((v) => [v, 170] as [number, number]),
        ...ramp(170, 40, 5).map((v) => [v, 170] as [number, number]),
        ...hold(40, gapFrames).map((v) => [v, 170, hidden] as [number, number, typeof hidden]),
        ...ramp(40, 170, 5).map((v) => [v, 170] as [number, number]),
        ...hold(170, 5).map((v) => [v, 170] as [number, number]),
      ]);

    it("pauses while the landmarks are hidden and emits a lost/regained pair", () => {
      const { events } = run(ELBOW_SPEC(), withGap(20));
      const lost = ofType(events, "tracking.lost");
      expect(lost).to.have.length(1);
      expect(lost[0].missing).to.include.members(["left_shoulder", "left_elbow", "left_wrist"]);
      expect(lost[0].since_t).to.be.closeTo(1.0, 1e-9);
      expect(ofType(events, "tracking.regained")[0].lost_for).to.be.closeTo(2.0, 1e-9);
      // The repetition in progress survives the pause.
      expect(ofType(events, "rep.completed")).to.have.length(1);
    });

    it("resets the repetition in progress after reset_after when on_lost is reset", () => {
      const yaml = ELBOW_SPEC({ extra: "tracking:\n  on_lost: reset\n  reset_after: 1s" });
      const { events } = run(yaml, withGap(20));
      expect(ofType(events, "rep.partial").map((p) => p.reason)).to.deep.equal(["tracking_lost"]);
      expect(ofType(events, "rep.completed")).to.have.length(0);
      // A short gap (under reset_after) does not reset.
      expect(ofType(run(yaml, withGap(5)).events, "rep.completed")).to.have.length(1);
    });

    it("does not declare tracking lost for a gap shorter than lost_after", () => {
      const { events } = run(ELBOW_SPEC(), withGap(2));
      expect(ofType(events, "tracking.lost")).to.have.length(0);
      expect(ofType(events, "rep.completed")).to.have.length(1);
    });
  });

  describe("sides", () => {
    it("both: counts each side separately, with a total", () => {
      const frames = sequence(
        [...oneRep(), ...oneRep()].map((v, i) => [v, i < 31 ? v : 170] as [number, number]),
      );
      const { events, all } = run(ELBOW_SPEC({ sides: "both" }), frames);
      const reps = ofType(events, "rep.completed");
      expect(reps.map((r) => `${r.side}${r.count}/${r.total}`)).to.deep.equal([
        "left1/1",
        "right1/2",
        "left2/3",
      ]);
      expect(ofType(all, "session.summary")[0].counts).to.deep.equal({ left: 2, right: 1 });
    });

    it("together: a phase needs both sides", () => {
      const onlyLeft = sequence(oneRep().map((v) => [v, 170] as [number, number]));
      expect(
        ofType(run(ELBOW_SPEC({ sides: "together" }), onlyLeft).events, "rep.completed"),
      ).to.have.length(0);
      const r = run(ELBOW_SPEC({ sides: "together" }), both(oneRep()));
      expect(ofType(r.events, "rep.completed").map((e) => e.side)).to.deep.equal(["both"]);
    });

    it("either: the side that moves owns the repetition", () => {
      const frames = sequence([
        ...oneRep().map((v) => [170, v] as [number, number]),
        ...oneRep().map((v) => [v, 170] as [number, number]),
      ]);
      const reps = ofType(run(ELBOW_SPEC({ sides: "either" }), frames).events, "rep.completed");
      expect(reps.map((r) => r.side)).to.deep.equal(["right", "left"]);
    });

    it("auto: a one-frame dip of the side it reads moves nothing; a loss (lost_after) switches", () => {
      // Four repetitions on the left arm; the right arm rests, a little less visible.
      const rest = { left: 1, right: 0.95 };
      const angles = Array.from({ length: 4 }, () => oneRep()).flat();
      const framesWith = (dip: (i: number) => boolean) =>
        sequence(
          angles.map((v, i) => [v, 170, dip(i) ? { left: 0.4, right: 0.95 } : rest] as const) as [
            number,
            number,
            { left: number; right: number },
          ][],
        );
      const spec = ELBOW_SPEC({ sides: "auto" });
      const steady = ofType(
        run(
          spec,
          framesWith(() => false),
        ).events,
        "rep.completed",
      );
      expect(steady.map((r) => r.side)).to.deep.equal(["left", "left", "left", "left"]);
      // One frame (0.1 s) of the left arm hidden, mid second repetition: still four, on the left.
      const blink = ofType(
        run(
          spec,
          framesWith((i) => i === 36),
        ).events,
        "rep.completed",
      );
      expect(blink.map((r) => r.side)).to.deep.equal(["left", "left", "left", "left"]);
      // Hidden from the second repetition on, longer than lost_after (0.3 s): the engine moves to
      // the right arm, which rests: the left arm's later repetitions are not its to count.
      const lost = ofType(
        run(
          spec,
          framesWith((i) => i >= 36),
        ).events,
        "rep.completed",
      );
      expect(lost.map((r) => r.side)).to.deep.equal(["left"]);
    });

    it("either: start.when holds on every side the camera sees, one side hidden or not", () => {
      const spec = ELBOW_SPEC({
        sides: "either",
        repetition:
          "repetition:\n  cycle: [open, closed, open]\n  within: [0.2s, 5s]\n  start: { phase: open, for: 0.2s, when: 'elbow > 0' }",
      });
      const hidden = { left: 1, right: 0 };
      const reps = (visibility?: { left: number; right: number }) =>
        ofType(
          run(
            spec,
            sequence(
              Array.from({ length: 3 }, () => oneRep())
                .flat()
                .map((v) => (visibility ? [v, 170, visibility] : [v, 170]) as [number, number]),
            ),
          ).events,
          "rep.completed",
        ).length;
      expect(reps()).to.equal(3);
      expect(reps(hidden)).to.equal(3);
    });

    it("auto: follows the better-visible side", () => {
      const dim = { left: 0.6, right: 1 };
      const frames = sequence(oneRep().map((v) => [170, v, dim] as [number, number, typeof dim]));
      const reps = ofType(run(ELBOW_SPEC({ sides: "auto" }), frames).events, "rep.completed");
      expect(reps.map((r) => r.side)).to.deep.equal(["right"]);
    });
  });

  describe("signals", () => {
    const SIGNAL = (expr: string, smoothing = "none") =>
      `movespec: 1\nname: s\nsmoothing: ${smoothing}\nsignals:\n  x: ${expr}\nphases:\n  a: { enter: x > 179.999, exit: x < 179 }\nhold: { phase: a, target: 1s }\n`;
    const valuesOf = (yaml: string, frames: Frame[]) => {
      const engine = createEngine(compile(yaml));
      return frames.map((f) => {
        engine.push(f);
        return engine.signalValues().x;
      });
    };

    it("One Euro smoothing follows the frames' timestamps, not their count", () => {
      const yaml = SIGNAL(
        "angle2d(left_shoulder, left_elbow, left_wrist)",
        "{ one_euro: { min_cutoff: 1.0, beta: 0, d_cutoff: 1.0 } }",
      );
      const step = (fps: number) => both([...hold(90, fps), ...hold(170, fps)], fps);
      const at30 = valuesOf(yaml, step(30));
      const at60 = valuesOf(yaml, step(60));
      // 0.5 s after the step the filtered values agree within a degree at either frame rate.
      expect(at30[30 + 15]).to.be.closeTo(at60[60 + 30], 1.0);
      expect(at30[30 + 15]).to.be.within(120, 169);
    });

    it("EMA with a time constant reaches 63% of a step after that time", () => {
      const yaml = SIGNAL(
        "angle2d(left_shoulder, left_elbow, left_wrist)",
        "{ ema: { time_constant: 0.5s } }",
      );
      const v = valuesOf(yaml, both([...hold(90, 10), ...hold(170, 10)], 10));
      expect(v[9 + 5]).to.be.closeTo(90 + 80 * (1 - Math.exp(-1)), 0.5);
    });

    it("velocity is per second and peak() decays slowly towards the value", () => {
      const vel = valuesOf(
        SIGNAL("velocity(angle2d(left_shoulder, left_elbow, left_wrist))"),
        both(ramp(100, 150, 6), 10),
      );
      expect(vel[3]).to.be.closeTo(50 / 6 / 0.1, 1e-6);
      const peak = valuesOf(
        SIGNAL("peak(angle2d(left_shoulder, left_elbow, left_wrist), 10)"),
        both([...hold(150, 3), ...hold(100, 10)], 10),
      );
      expect(peak[2]).to.be.closeTo(150, 1e-9);
      expect(peak[12]).to.be.within(140, 150);
    });

    it("arithmetic, min, max, mean and side-qualified references", () => {
      const yaml = `movespec: 1\nname: s\nsmoothing: none\nsides: both\nsignals:\n  e: angle2d(shoulder, elbow, wrist)\n  x: max(left.e, right.e) - min(left.e, right.e) + mean(left.e, right.e) / 2\nphases:\n  a: { enter: x > 179.999, exit: x < 179 }\nhold: { phase: a, target: 1s }\n`;
      expect(valuesOf(yaml, sequence([[100, 40]]))[0]).to.be.closeTo(60 + 35, 1e-6);
    });

    it("mean_visible averages the sides the camera sees, and reads one side when the other hides", () => {
      const yaml = `movespec: 1\nname: s\nsmoothing: none\nsignals:\n  e: angle2d(shoulder, elbow, wrist)\n  x: mean_visible(left.e, right.e)\nphases:\n  a: { enter: x > 179.999, exit: x < 179 }\nhold: { phase: a, target: 1s }\n`;
      const engine = createEngine(compile(yaml));
      const at = (i: number, l: number, r: number, vis: { left: number; right: number }) => {
        const events = engine.push({ seq: i, t: i / 10, keypoints: arms(l, r, vis) });
        return { x: engine.signalValues().x, events: events.ok ? events.events : [] };
      };
      expect(at(0, 100, 40, { left: 1, right: 1 }).x).to.be.closeTo(70, 1e-6);
      expect(at(1, 100, 40, { left: 0.1, right: 1 }).x).to.be.closeTo(40, 1e-6);
      expect(at(2, 120, 50, { left: 1, right: 0.1 }).x).to.be.closeTo(120, 1e-6);
      // One side is enough for the gate (either side of each landmark); none is not.
      const lost = [3, 4, 5, 6, 7].flatMap((i) => at(i, 90, 90, { left: 0, right: 0 }).events);
      expect(engine.signalValues().x).to.be.closeTo(120, 1e-6); // kept from the last known frame
      expect(lost.map((e) => e.type)).to.deep.equal(["tracking.lost"]);
      const missing = lost[0].type === "tracking.lost" ? lost[0].missing : [];
      expect(missing).to.include.members([
        "left_elbow or right_elbow",
        "left_wrist or right_wrist",
      ]);
    });

    it("min_visible and max_visible read the sides the camera sees: one arm raised is the raise", () => {
      const yaml = `movespec: 1\nname: s\nsmoothing: none\nsignals:\n  e: angle2d(shoulder, elbow, wrist)\n  lo: min_visible(left.e, right.e)\n  hi: max_visible(left.e, right.e)\nphases:\n  a: { enter: lo > 179.999 and hi > 179.999, exit: lo < 179 }\nhold: { phase: a, target: 1s }\n`;
      const engine = createEngine(compile(yaml));
      const at = (i: number, l: number, r: number, vis: { left: number; right: number }) => {
        const events = engine.push({ seq: i, t: i / 10, keypoints: arms(l, r, vis) });
        const v = engine.signalValues();
        return { lo: v.lo, hi: v.hi, events: events.ok ? events.events : [] };
      };
      const both = at(0, 100, 40, { left: 1, right: 1 });
      expect([both.lo, both.hi].map((x) => Math.round(x * 1e6) / 1e6)).to.deep.equal([40, 100]);
      // The hidden side is left out (plain min/max would wait for both): the visible one is read.
      const leftHidden = at(1, 30, 60, { left: 0.1, right: 1 });
      expect([leftHidden.lo, leftHidden.hi].map((x) => Math.round(x * 1e6) / 1e6)).to.deep.equal([
        60, 60,
      ]);
      const rightHidden = at(2, 120, 10, { left: 1, right: 0.1 });
      expect([rightHidden.lo, rightHidden.hi].map((x) => Math.round(x * 1e6) / 1e6)).to.deep.equal([
        120, 120,
      ]);
      const lost = [3, 4, 5, 6, 7].flatMap((i) => at(i, 90, 90, { left: 0, right: 0 }).events);
      expect(engine.signalValues().hi).to.be.closeTo(120, 1e-6); // kept from the last known frame
      expect(lost.map((e) => e.type)).to.deep.equal(["tracking.lost"]);
    });

    it("scale: height divides by the height of the visible keypoints, whatever the distance", () => {
      const yaml = SIGNAL("above(nose, mid_ankle)").replace("signals:", "scale: height\nsignals:");
      const standing = render({});
      const ys = standing.map((p) => p[1]);
      const nose = standing[0][1];
      const ankles = (standing[27][1] + standing[28][1]) / 2;
      const expected = (ankles - nose) / (Math.max(...ys) - Math.min(...ys));
      // The same person half as tall in the picture (twice as far), and moved aside.
      const far = standing.map((p) => [0.3 + p[0] / 2, 0.4 + p[1] / 2, p[2] / 2, p[3]]);
      const [near, farther] = valuesOf(yaml, [
        { seq: 0, t: 0, keypoints: standing },
        { seq: 1, t: 100, keypoints: far },
      ]);
      expect(near).to.be.closeTo(expected, 1e-6);
      expect(expected).to.be.within(0.8, 1);
      expect(farther).to.be.closeTo(expected, 1e-6);
    });

    it("uses the aspect ratio of the image for angles", () => {
      // The same normalised keypoints read as a square image give a different angle.
      const yaml = SIGNAL("angle2d(left_shoulder, left_elbow, left_wrist)");
      const engine = createEngine(compile(yaml), { aspectRatio: 1 });
      engine.push({ seq: 0, t: 0, keypoints: arms(60, 60) });
      expect(engine.signalValues().x).to.be.closeTo(
        (Math.atan2(Math.sin(Math.PI / 3) * (9 / 16), 0.5) * 180) / Math.PI,
        1e-6,
      );
    });
  });

  describe("frames", () => {
    const spec = () => compile(ELBOW_SPEC());
    const good = (seq: number, t: number) => ({ seq, t, keypoints: arms(170, 170) });

    it("rejects bad frames one by one with a stable reason and never changes state", () => {
      const engine = createEngine(spec());
      expect(engine.push(good(5, 1)).ok).to.equal(true);
      const before = JSON.stringify(engine.snapshot());
      const nan = good(6, 1.1);
      nan.keypoints[13] = [Number.NaN, 0.5, 0, 1];
      const inf = good(6, 1.1);
      inf.keypoints[2] = [0.5, Number.POSITIVE_INFINITY];
      const str = good(6, 1.1);
      (str.keypoints[2] as unknown[])[0] = "0.5";
      const cases: [unknown, string][] = [
        [good(5, 1.2), "SEQ_NOT_INCREASING"],
        [good(4, 1.2), "SEQ_NOT_INCREASING"],
        [good(6, 1), "TIME_NOT_INCREASING"],
        [good(6, 0.5), "TIME_NOT_INCREASING"],
        [{ seq: 6, t: 1.1, keypoints: arms(170, 170).slice(0, 17) }, "KEYPOINT_COUNT_MISMATCH"],
        [nan, "COORDINATE_INVALID"],
        [inf, "COORDINATE_INVALID"],
        [str, "COORDINATE_INVALID"],
        [null, "FRAME_MALFORMED"],
        ["frame", "FRAME_MALFORMED"],
        [[1, 2, 3], "FRAME_MALFORMED"],
        [{ seq: 6.5, t: 1.1, keypoints: [] }, "FRAME_MALFORMED"],
        [{ seq: 6, t: "1.1", keypoints: [] }, "FRAME_MALFORMED"],
        [{ seq: 6, t: 1.1 }, "FRAME_MALFORMED"],
        [{ seq: 6, t: 1.1, keypoints: "none" }, "FRAME_MALFORMED"],
        [{ seq: 6, t: 1.1, keypoints: {} }, "FRAME_MALFORMED"],
        [{ seq: 6, t: 1.1, keypoints: Array.from({ length: 33 }, () => [0.5]) }, "FRAME_MALFORMED"],
        [{ seq: 6, t: Number.NaN, keypoints: arms(170, 170) }, "FRAME_MALFORMED"],
        [{ seq: -1, t: 1.1, keypoints: arms(170, 170) }, "FRAME_MALFORMED"],
      ];
      for (const [frame, reason] of cases) {
        const r = engine.push(frame);
        expect(r.ok, JSON.stringify(frame)?.slice(0, 80)).to.equal(false);
        if (!r.ok) {
          expect(r.reason).to.equal(reason);
          expect(r.message).to.be.a("string").and.not.equal("");
        }
        expect(JSON.stringify(engine.snapshot())).to.equal(before);
      }
      expect(engine.acceptedFrames).to.equal(1);
      expect(engine.lastSeq).to.equal(5);
      expect(engine.push(good(6, 1.1)).ok).to.equal(true);
    });

    it("accepts [x, y] and [x, y, z] keypoints (no visibility means visible)", () => {
      const engine = createEngine(spec());
      const twoD = arms(170, 170).map((p) => [p[0], p[1]]);
      const threeD = arms(170, 170).map((p) => [p[0], p[1], p[2]]);
      expect(engine.push({ seq: 1, t: 0, keypoints: twoD }).ok).to.equal(true);
      expect(engine.push({ seq: 2, t: 0.1, keypoints: threeD }).ok).to.equal(true);
      expect(engine.signalValues()["left.elbow"]).to.be.closeTo(170, 1e-6);
    });

    it("pushMany reports rejected frames by index and gives the same events as push", () => {
      const frames: unknown[] = both([...oneRep(), ...oneRep()]);
      frames.splice(10, 0, { seq: 3, t: 0.3, keypoints: [] }, "junk");
      const one = createEngine(spec());
      const events1: DetectionEvent[] = [];
      for (const f of frames) {
        const r = one.push(f);
        if (r.ok) events1.push(...r.events);
      }
      const many = createEngine(spec());
      const r = many.pushMany(frames);
      expect(r.rejected.map((x) => [x.index, x.reason])).to.deep.equal([
        [10, "SEQ_NOT_INCREASING"],
        [11, "FRAME_MALFORMED"],
      ]);
      expect(JSON.stringify(r.events)).to.equal(JSON.stringify(events1));
      expect(JSON.stringify(many.finish())).to.equal(JSON.stringify(one.finish()));
    });

    it("accepts keypoints: null as a frame with no person: tracking is lost, nothing counts", () => {
      const noPerson = (from: number, n: number) =>
        Array.from({ length: n }, (_, i) => ({
          seq: from + i,
          t: (from + i) / 10,
          keypoints: null,
        }));
      // A repetition, 2 s with nobody in the picture, then another repetition.
      const first = both(oneRep());
      const frames = [
        ...first,
        ...noPerson(first.length, 20),
        ...both(oneRep(), 10, first.length + 20),
      ];
      const { all } = run(ELBOW_SPEC(), frames);
      const types = all.map((e) => e.type).filter((t) => t !== "phase.entered");
      expect(types).to.deep.equal([
        "rep.completed",
        "tracking.lost",
        "tracking.regained",
        "rep.completed",
        "session.summary",
      ]);
      const lost = all.find((e) => e.type === "tracking.lost");
      expect(lost?.type === "tracking.lost" && lost.missing).to.include.members([
        "left_shoulder",
        "left_elbow",
        "left_wrist",
      ]);
      const summary = all[all.length - 1];
      expect(summary.type === "session.summary" && summary.frames).to.equal(frames.length);
    });

    it("a session that accepted no frame ends with a summary at seq 0 and t 0 (the event schema's minimum)", () => {
      const { events } = createEngine(spec()).finish();
      expect(events).to.have.length(1);
      expect(events[0]).to.include({ type: "session.summary", seq: 0, t: 0, frames: 0 });
    });

    it("refuses frames after finish", () => {
      const engine = createEngine(spec());
      engine.finish();
      const r = engine.push(good(1, 0));
      expect(r.ok).to.equal(false);
      if (!r.ok) expect(r.reason).to.equal("SESSION_FINISHED");
    });
  });

  describe("events and snapshots", () => {
    it("numbers events from 1 without gaps and ends with a session summary", () => {
      const { all } = run(ELBOW_SPEC(), both([...oneRep(), ...oneRep()]));
      expect(all.map((e) => e.event_seq)).to.deep.equal(all.map((_, i) => i + 1));
      const last = all[all.length - 1];
      expect(last.type).to.equal("session.summary");
      if (last.type === "session.summary") {
        expect(last.count).to.equal(2);
        expect(last.reps).to.have.length(2);
        expect(last.frames).to.equal(oneRep().length * 2);
      }
      for (const e of all)
        expect(Object.keys(e).slice(0, 4)).to.deep.equal(["type", "event_seq", "seq", "t"]);
    });

    it("continues byte-identically after a JSON snapshot and restore at any point", () => {
      const yaml = ELBOW_SPEC({
        sides: "both",
        smoothing: "{ one_euro: { min_cutoff: 1.0, beta: 0.05 } }",
        extra:
          "form:\n  - { id: r, when: elbow < 50, during: [closed], message: m }\nmetrics: [elbow]",
      });
      const frames = sequence(
        [...oneRep(), ...oneRep(), ...oneRep()].map(
          (v, i) => [v, 180 - v / 2 + (i % 3)] as [number, number],
        ),
      );
      const spec = compile(yaml);
      const reference = createEngine(spec);
      const refEvents = [...reference.pushMany(frames).events, ...reference.finish().events];
      for (const cut of [0, 1, 17, 40, 63, frames.length]) {
        const a = createEngine(spec);
        const first = a.pushMany(frames.slice(0, cut)).events;
        const snap = JSON.parse(JSON.stringify(a.snapshot()));
        const b = restoreEngine(spec, snap);
        expect(b.acceptedFrames).to.equal(cut);
        const rest = [...b.pushMany(frames.slice(cut)).events, ...b.finish().events];
        expect(JSON.stringify([...first, ...rest]), `cut at ${cut}`).to.equal(
          JSON.stringify(refEvents),
        );
      }
    });

    it("refuses a snapshot taken with another MoveSpec", () => {
      const a = createEngine(compile(ELBOW_SPEC()));
      a.push({ seq: 0, t: 0, keypoints: arms(170, 170) });
      expect(() => restoreEngine(compile(ELBOW_SPEC({ sides: "both" })), a.snapshot())).to.throw(
        /different MoveSpec/,
      );
    });

    it("refuses another MoveSpec's snapshot even when its arrays have the same sizes", () => {
      // Pairs whose engines happen to be laid out alike (the review's finds).
      for (const [from, into] of [
        ["plank", "lunge"],
        ["sit-up", "pull-up"],
        ["arm-raise", "shoulder-abduction"],
      ]) {
        const a = createEngine(loadExample(from));
        a.push({ seq: 0, t: 0, keypoints: arms(170, 170) });
        const snapshot = JSON.parse(JSON.stringify(a.snapshot()));
        expect(() => restoreEngine(loadExample(into), snapshot), `${from} -> ${into}`).to.throw(
          /different MoveSpec/,
        );
        // Its own MoveSpec, compiled again (another process), takes it.
        expect(() => restoreEngine(loadExample(from), snapshot)).to.not.throw();
      }
      // Thresholds edited, the same shape: the state still means the same.
      const elbow = createEngine(compile(ELBOW_SPEC()));
      elbow.push({ seq: 0, t: 0, keypoints: arms(170, 170) });
      const edited = ELBOW_SPEC().replace("enter: elbow > 150", "enter: elbow > 155");
      expect(() => restoreEngine(compile(edited), elbow.snapshot())).to.not.throw();
    });
  });

  describe("topologies", () => {
    it("runs a MoveSpec on COCO-17 when its landmarks exist there", () => {
      const spec = compile(ELBOW_SPEC());
      expect(supportsTopology(spec, "coco-17")).to.equal(true);
      const coco = [0, 2, 5, 7, 8, 11, 12, 13, 14, 15, 16, 23, 24, 25, 26, 27, 28];
      const frames = both(oneRep()).map((f) => ({
        ...f,
        keypoints: coco.map((i) => f.keypoints[i]),
      }));
      const { events } = run(ELBOW_SPEC(), frames, { topology: "coco-17" });
      expect(ofType(events, "rep.completed")).to.have.length(1);
    });

    it("does not run a MoveSpec that needs BlazePose-only landmarks on COCO-17", () => {
      const spec = compile(
        ELBOW_SPEC().replace("angle2d(shoulder, elbow, wrist)", "angle2d(elbow, wrist, index)"),
      );
      expect(supportsTopology(spec, "coco-17")).to.equal(false);
      expect(supportsTopology(spec, "blazepose-33")).to.equal(true);
      expect(() => createEngine(spec, { topology: "coco-17" })).to.throw(/does not run on coco-17/);
    });
  });

  it("load() never throws and createEngine accepts every reference-style spec", () => {
    expect(load("").errors[0].code).to.be.a("string");
  });
});
