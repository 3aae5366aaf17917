/**
 * `fit:` and `movespec fit`'s library: the numbers a fit block names, the source rewritten at
 * them, the search finding a planted optimum on synthetic recordings, and cross-validation that
 * chooses each fold's numbers without the fold.
 */

import { LOAD_LIMITS, load } from "@movement-detection/movespec";
import type { LabelledRecording } from "@movement-detection/movespec/fit";
import {
  assignFolds,
  compareScores,
  fitMoveSpec,
  gridOf,
  scoreOf,
  withValues,
} from "@movement-detection/movespec/fit";
import { expect } from "chai";
import { animate, reps } from "./support/synthetic.js";

/** A left-arm curl with fixed thresholds: the top of the curl is `elbow < 70`. */
const CURL = `movespec: 1
name: Curl
sides: left
signals:
  elbow: angle2d(shoulder, elbow, wrist) # 180 = straight
phases:
  down: { enter: elbow > 150, exit: elbow < 140 }
  up: { enter: elbow < 70, exit: elbow > 80 } # curled
repetition:
  cycle: [down, up, down]
  within: [0.3s, 8s]
`;

const withFit = (block: string) => `${CURL}fit:\n${block}`;

function loaded(source: string) {
  const r = load(source);
  expect(r.errors, JSON.stringify(r.errors)).to.deep.equal([]);
  return r.spec!;
}

function errorsOf(source: string) {
  return load(source).errors.map((e) => `${e.code} ${e.path ?? ""}: ${e.message}`);
}

/** `count` curls of the left elbow to `flexion` degrees (180 - flexion at the top), 2 s each. */
function curls(id: string, count: number, flexion: number, expected = count): LabelledRecording {
  return {
    id,
    // Seen from the side (view 90), so that the elbow bends in the picture's plane.
    frames: animate(count * 2 + 2, (t) => ({ elbowLeft: flexion * reps(t, count, 2) }), {
      view: 90,
    }),
    expected,
  };
}

describe("fit: blocks", () => {
  it("name numbers, durations and the n-th number of an expression, with where they are written", () => {
    const source =
      withFit(`  top: { at: [phases.up.enter, phases.up.exit], range: [40, 140], step: 5 }
  slow: { at: "repetition.within[1]", range: [4s, 12s], step: 1s }
`);
    const spec = loaded(source);
    expect(spec.fit.map((p) => [p.name, p.range, p.step])).to.deep.equal([
      ["top", [40, 140], 5],
      ["slow", [4, 12], 1],
    ]);
    const [top, slow] = spec.fit;
    expect(top.targets.map((t) => [t.path, t.value, t.form])).to.deep.equal([
      ["phases.up.enter", 70, "expression"],
      ["phases.up.exit", 80, "expression"],
    ]);
    expect(top.targets.map((t) => source.slice(t.start, t.end))).to.deep.equal(["70", "80"]);
    expect(slow.targets[0]).to.include({ value: 8, form: "duration", unitSeconds: 1 });
    expect(source.slice(slow.targets[0].start, slow.targets[0].end)).to.equal("8");
  });

  it("pick a number of an expression by #n from the left, a negative one whole", () => {
    const source = `${CURL.replace("enter: elbow < 70,", "enter: elbow < 70 or elbow - 200 < -0.5 * 250,")}fit:
  a: { at: "phases.up.enter#3", range: [-1, 0] }
  b: { at: "phases.up.enter#4", range: [100, 300] }
`;
    const [a, b] = loaded(source).fit;
    expect(source.slice(a.targets[0].start, a.targets[0].end)).to.equal("-0.5");
    expect(a.targets[0].value).to.equal(-0.5);
    expect(b.targets[0].value).to.equal(250);
  });

  it("refuse paths that do not lead to one number, saying what is there", () => {
    const errors = errorsOf(
      withFit(`  a: { at: phases.up.entr, range: [0, 1] }
  b: { at: phases.up, range: [0, 1] }
  c: { at: "phases.up.enter#2", range: [0, 1] }
  d: { at: name, range: [0, 1] }
  e: { at: "repetition.within[5]", range: [0, 1] }
  f: { at: "phases..up", range: [0, 1] }
  g: { at: phases.down.enter, range: [0, 1] }
  h: { at: phases.down.enter, range: [0, 1] }
  i: { at: [phases.down.exit, phases.down.exit], range: [0, 1] }
`),
    );
    expect(errors).to.deep.equal([
      "FIT_TARGET_INVALID fit.a.at: fit.a.at: 'phases.up.entr' does not lead anywhere: phases.up has no 'entr' (did you mean 'enter'?)",
      "FIT_TARGET_INVALID fit.b.at: fit.b.at: 'phases.up' names a mapping or a list, not a number",
      "FIT_TARGET_INVALID fit.c.at: fit.c.at: 'phases.up.enter#2' has 1 number: #2 is not one of them",
      "FIT_TARGET_INVALID fit.d.at: fit.d.at: 'name' has no number in it",
      "FIT_TARGET_INVALID fit.e.at: fit.e.at: 'repetition.within[5]' does not lead anywhere: repetition.within has no item [5]",
      "FIT_TARGET_INVALID fit.f.at: fit.f.at: 'phases..up' is not a path (such as signals.depth.min_range or phases.up.enter#1)",
      "FIT_TARGET_INVALID fit.h.at: fit.h.at: 'phases.down.enter' is already fitted by 'g'",
      "FIT_TARGET_INVALID fit.i.at[1]: fit.i.at names 'phases.down.exit' twice",
    ]);
  });

  it("ask which number when an expression has several", () => {
    const errors = errorsOf(
      `${CURL.replace("enter: elbow < 70,", "enter: elbow < 70 and elbow > 10,")}fit:\n  a: { at: phases.up.enter, range: [0, 1] }\n`,
    );
    expect(errors).to.deep.equal([
      "FIT_TARGET_INVALID fit.a.at: fit.a.at: 'phases.up.enter' has 2 numbers: say which with #1 to #2 (from the left)",
    ]);
  });

  it("check ranges and steps, at and past their limits", () => {
    const steps = (n: number) =>
      withFit(`  a: { at: phases.up.enter, range: [0, ${n}], step: 1 }\n`);
    expect(errorsOf(steps(LOAD_LIMITS.maxFitSteps))).to.deep.equal([]);
    expect(errorsOf(steps(LOAD_LIMITS.maxFitSteps + 1))).to.deep.equal([
      `VALUE_INVALID fit.a.step: fit.a.step must be above 0 and cut the range into at most ${LOAD_LIMITS.maxFitSteps} steps`,
    ]);
    expect(errorsOf(withFit("  a: { at: phases.up.enter, range: [5, 5] }\n"))).to.deep.equal([
      "VALUE_INVALID fit.a.range: fit.a.range must go from low to high",
    ]);
    expect(errorsOf(withFit("  a: { at: phases.up.enter, range: [5] }\n"))).to.deep.equal([
      "TYPE_MISMATCH fit.a.range: fit.a.range must be a list of two values, [low, high]",
    ]);
    expect(
      errorsOf(withFit("  a: { at: phases.up.enter, range: [0, 1], step: 0 }\n")),
    ).to.have.length(1);
    expect(errorsOf(withFit("  A: { at: phases.up.enter, range: [0, 1] }\n"))[0]).to.match(
      /^NAME_INVALID/,
    );
    expect(errorsOf(withFit("  a: { at: phases.up.enter }\n"))).to.deep.equal([
      "FIELD_REQUIRED fit.a.range: the parameter 'a' needs 'range'",
    ]);
  });

  it(`free at most ${LOAD_LIMITS.maxFitParameters} numbers, each moving at most ${LOAD_LIMITS.maxFitTargets}`, () => {
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => `  p${i}: { at: phases.up.enter, range: [0, 1] }`).join(
        "\n",
      );
    // The same number named by every parameter: only the limit is reported when it is passed.
    expect(errorsOf(withFit(`${many(LOAD_LIMITS.maxFitParameters)}\n`))).to.have.length(
      LOAD_LIMITS.maxFitParameters - 1,
    );
    expect(errorsOf(withFit(`${many(LOAD_LIMITS.maxFitParameters + 1)}\n`))).to.deep.equal([
      `TOO_MANY_DEFINITIONS fit: fit frees at most ${LOAD_LIMITS.maxFitParameters} numbers (the search grows with each)`,
    ]);
    const targets = (n: number) =>
      withFit(
        `  a: { at: [${Array.from({ length: n }, () => "phases.up.enter").join(", ")}], range: [0, 1] }\n`,
      );
    expect(errorsOf(targets(LOAD_LIMITS.maxFitTargets))).to.have.length(
      LOAD_LIMITS.maxFitTargets - 1,
    );
    expect(errorsOf(targets(LOAD_LIMITS.maxFitTargets + 1))).to.deep.equal([
      `VALUE_INVALID fit.a.at: fit.a.at names 1 to ${LOAD_LIMITS.maxFitTargets} numbers`,
    ]);
  });

  it("cannot rewrite a number inside a block scalar, and says so", () => {
    const source = `${CURL.replace("  up: { enter: elbow < 70, exit: elbow > 80 } # curled", "  up:\n    enter: |\n      elbow < 60\n    exit: elbow > 70")}fit:\n  a: { at: phases.up.enter, range: [0, 100] }\n`;
    expect(errorsOf(source)).to.deep.equal([
      "FIT_TARGET_INVALID fit.a.at: fit.a.at: 'phases.up.enter' is an expression fit cannot rewrite in place (write it on one line, without escapes)",
    ]);
  });
});

describe("withValues", () => {
  it("rewrites only the numbers named, the followers by as much as the first", () => {
    const source = withFit(
      '  top: { at: [phases.up.enter, phases.up.exit], range: [40, 140], step: 5 }\n  slow: { at: "repetition.within[0]", range: [100ms, 900ms], step: 50ms }\n',
    );
    const spec = loaded(source);
    const out = withValues(source, spec.fit, [95, 0.45]);
    const changed = out.split("\n").filter((l, i) => l !== source.split("\n")[i]);
    expect(changed).to.deep.equal([
      "  up: { enter: elbow < 95, exit: elbow > 105 } # curled",
      "  within: [0.45s, 8s]",
    ]);
    expect(loaded(out).fit[0].targets[0].value).to.equal(95);
  });

  it("writes a duration in its own unit and a negative number in brackets", () => {
    const source = `${CURL.replace("within: [0.3s, 8s]", "within: [300ms, 8s]").replace("phases:", "  shifted: elbow - 10\nphases:")}fit:
  fast: { at: "repetition.within[0]", range: [0.1s, 0.5s], step: 0.05s }
  shift: { at: signals.shifted, range: [-10, 10] }
`;
    const spec = loaded(source);
    const out = withValues(source, spec.fit, [0.15, -5]);
    expect(out).to.include("within: [150ms, 8s]");
    expect(out).to.include("shifted: elbow - (-5)");
    expect(load(out).errors).to.deep.equal([]);
  });
});

describe("fit's search", () => {
  const source = withFit(
    "  top: { at: [phases.up.enter, phases.up.exit], range: [40, 140], step: 5 }\n",
  );
  // Full curls reach an elbow angle of 60 and 80 degrees; half curls (to 125) must not count.
  const recordings = [
    curls("full", 4, 120),
    curls("most", 4, 100),
    curls("half", 4, 55, 0),
    curls("half2", 3, 55, 0),
  ];

  it("grids run from the low end in steps, written as the MoveSpec writes them", () => {
    expect(gridOf(loaded(source).fit[0])).to.deep.equal(
      Array.from({ length: 21 }, (_, i) => 40 + 5 * i),
    );
    const fine = loaded(withFit("  top: { at: phases.down.enter, range: [0.1, 0.4] }\n")).fit[0];
    expect(gridOf(fine)).to.deep.equal([
      0.1, 0.13, 0.16, 0.19, 0.22, 0.25, 0.28, 0.31, 0.34, 0.37, 0.4,
    ]);
  });

  it("finds the planted optimum, in the middle of the interval that counts every recording", () => {
    const result = fitMoveSpec(source, recordings, { folds: 2 });
    // As given (70) only the deepest curls count.
    expect(result.before.exact).to.equal(3);
    expect(result.after.exact).to.equal(4);
    const [top] = result.parameters;
    // The top must be above 80 (the shallowest full curl) and at most 125 (the half curls),
    // smoothing taking a little off each side.
    expect(top.margin.low).to.be.within(80, 95);
    expect(top.margin.high).to.be.within(110, 125);
    expect(top.after).to.equal(Math.round((top.margin.low + top.margin.high) / 2 / 5) * 5);
    expect(top.margin.atLowEdge || top.margin.atHighEdge || top.margin.undecided).to.equal(false);
    expect(result.source).to.include(
      `enter: elbow < ${top.after}, exit: elbow > ${top.after + 10}`,
    );
    expect(result.recordings.map((r) => [r.id, r.before.counted, r.after.counted])).to.deep.equal([
      ["full", 4, 4],
      ["most", 0, 4],
      ["half", 0, 0],
      ["half2", 0, 0],
    ]);
  });

  it("chooses each fold's numbers without the fold, as fitting the other folds alone would", () => {
    const result = fitMoveSpec(source, recordings, { folds: 2, seed: 3 });
    expect(result.folds).to.have.length(2);
    for (const fold of result.folds) {
      const train = recordings.filter((r) => !fold.testIds.includes(r.id));
      expect(train.length).to.be.greaterThan(0);
      const alone = fitMoveSpec(source, train, { folds: 1 });
      expect(fold.values).to.deep.equal(alone.parameters.map((p) => p.after));
    }
  });

  it("shows in the cross-validated figure what the in-sample one hides", () => {
    // Leave one out: without the full curls, the half curls alone put the top in the middle of
    // 40..120, too low for the full curls (80); without the half curls, nothing holds it down.
    const two = [recordings[1], recordings[2]];
    const result = fitMoveSpec(source, two, { folds: 2 });
    expect(result.after.exact).to.equal(2);
    expect(result.crossValidated!.exact).to.equal(1);
    expect(result.recordings.map((r) => [r.id, r.crossValidated?.counted])).to.deep.equal([
      ["most", 0],
      ["half", 0],
    ]);
  });

  it("scores more exact counts first, then within one, then the smaller error", () => {
    const s = (counted: number[], expected: number[]) =>
      scoreOf(
        counted.map((c, i) => ({ expected: expected[i], counted: c, repTimes: [], rejected: 0 })),
      );
    expect(compareScores(s([5, 3], [5, 5]), s([4, 4], [5, 5]))).to.be.above(0);
    expect(compareScores(s([4, 9], [5, 5]), s([4, 4], [5, 5]))).to.be.below(0);
    expect(compareScores(s([4, 4], [5, 5]), s([3, 6], [5, 5]))).to.be.above(0);
    expect(compareScores(s([4, 10], [5, 10]), s([5, 9], [5, 10]))).to.be.below(0);
    expect(compareScores(s([4, 4], [5, 5]), s([6, 4], [5, 5]))).to.equal(0);
  });

  it("reports progress up to its total, by stage", () => {
    const seen: string[] = [];
    let last = { done: 0, total: 0 };
    fitMoveSpec(source, recordings, {
      folds: 2,
      onProgress: (p) => {
        expect(p.done).to.be.at.least(last.done);
        last = p;
        if (seen.at(-1) !== p.stage) seen.push(p.stage);
      },
    });
    expect(seen).to.deep.equal(["all recordings", "fold 1 of 2", "fold 2 of 2"]);
    expect(last.done).to.equal(last.total);
  });

  it("refuses a MoveSpec that does not load, no recordings, and ids given twice", () => {
    expect(() => fitMoveSpec("movespec: 1\n", recordings)).to.throw(/does not load/);
    expect(() => fitMoveSpec(source, [])).to.throw(/no recordings/);
    expect(() => fitMoveSpec(source, [recordings[0], recordings[0]])).to.throw(/same id/);
  });
});

describe("assignFolds", () => {
  const items = [
    ...Array.from({ length: 7 }, (_, i) => ({ id: `squat-${i}`, group: "squat" })),
    ...Array.from({ length: 5 }, (_, i) => ({ id: `lunge-${i}`, group: "lunge" })),
  ];

  it("deals every group across the folds, folds differing in size by one at most", () => {
    const folds = assignFolds(items, 4, 1);
    const sizes = [0, 1, 2, 3].map((f) => folds.filter((x) => x === f).length);
    expect(Math.max(...sizes) - Math.min(...sizes)).to.be.at.most(1);
    for (const g of ["squat", "lunge"]) {
      const per = [0, 1, 2, 3].map(
        (f) => items.filter((it, i) => it.group === g && folds[i] === f).length,
      );
      expect(Math.max(...per) - Math.min(...per), g).to.be.at.most(1);
    }
  });

  it("depends on the ids and the seed, not on the order given", () => {
    const folds = assignFolds(items, 4, 1);
    const reversed = assignFolds([...items].reverse(), 4, 1).reverse();
    expect(reversed).to.deep.equal(folds);
    expect(assignFolds(items, 4, 2)).to.not.deep.equal(folds);
  });

  it("leaves one out when there are fewer recordings than folds", () => {
    expect(assignFolds(items.slice(0, 3), 10, 1).sort()).to.deep.equal([0, 1, 2]);
  });
});
