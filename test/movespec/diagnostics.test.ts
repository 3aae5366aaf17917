/**
 * The mistakes MoveSpec authors make with units, ranges and typos each get one message that says
 * where, what and how to fix it, and nothing that merely follows from it.
 */

import { type Issue, load } from "@movement-detection/movespec";
import { expect } from "chai";

/** Arm abduction on the right arm; cases below change one thing. Line numbers matter. */
const BASE = `movespec: 1
name: Arm raise
sides: right
signals:
  arm_elevation: angle_to_vertical(shoulder, elbow)
  elbow_angle: angle2d(shoulder, elbow, wrist)
phases:
  lowered:
    enter: arm_elevation < 50
    exit: arm_elevation > 60
  raised:
    enter: arm_elevation > 80
    exit: arm_elevation < 70
repetition:
  cycle: [lowered, raised, lowered]
  start: { phase: lowered, for: 0.2s }
form:
  - id: straight_arm
    when: elbow_angle < 130
    during: [raised]
    message: Keep your elbow straight.
metrics: [arm_elevation]
`;

function issues(yaml: string): Issue[] {
  const r = load(yaml);
  return [...r.errors, ...r.warnings];
}

function only(yaml: string): Issue {
  const all = issues(yaml);
  expect(all, JSON.stringify(all, null, 1)).to.have.length(1);
  return all[0];
}

describe("MoveSpec diagnostics for authors", () => {
  it("the base MoveSpec loads with no issues", () => {
    expect(issues(BASE)).to.deep.equal([]);
  });

  describe("units", () => {
    it("angle thresholds that all fit in 0..2pi: radians? angles are degrees", () => {
      const yaml = BASE.replace("arm_elevation < 50", "arm_elevation < 0.87")
        .replace("arm_elevation > 60", "arm_elevation > 1.05")
        .replace("arm_elevation > 80", "arm_elevation > 1.4")
        .replace("arm_elevation < 70", "arm_elevation < 1.22")
        .replace("elbow_angle < 130", "elbow_angle < 2.27");
      const i = only(yaml);
      expect(i).to.include({
        code: "ANGLE_IN_RADIANS",
        severity: "warning",
        line: 9,
        column: 12,
        path: "phases.lowered.enter",
      });
      expect(i.message).to.match(/^radians\? angles are degrees/);
      expect(i.message).to.include("write 49.8 for 0.87");
    });

    it("small whole-degree thresholds are not taken for radians", () => {
      const yaml = BASE.replace("arm_elevation < 50", "arm_elevation < 2")
        .replace("arm_elevation > 60", "arm_elevation > 4")
        .replace("arm_elevation > 80", "arm_elevation > 6")
        .replace("arm_elevation < 70", "arm_elevation < 5")
        .replace("elbow_angle < 130", "elbow_angle < 3");
      expect(issues(yaml)).to.deep.equal([]);
    });

    const suffixes: [string, string, RegExp][] = [
      ["80deg", "80", /angles are bare degrees: write 80, not 80deg/],
      ["80 degrees", "80", /angles are bare degrees: write 80, not 80degrees/],
      ["80°", "80", /angles are bare degrees: write 80/],
      ["1.4rad", "1.4", /not radians: write 80.2 for 1.4 rad/],
      ["500ms", "500", /compares signal values, not durations: write 500 without 'ms'/],
      ["50%", "50", /percentages are written as fractions: write 0.5 for 50%/],
      ["30cm", "30", /distances are in body scales/],
    ];
    for (const [written, number, message] of suffixes) {
      it(`a number with a unit (${written}) says what to write instead`, () => {
        const i = only(BASE.replace("arm_elevation > 80", `arm_elevation > ${written}`));
        expect(i).to.include({ code: "EXPRESSION_SYNTAX", line: 12, path: "phases.raised.enter" });
        // The column points at the unit, just after the number.
        expect(i.column).to.equal(
          12 + "arm_elevation > ".length + number.length + (written.includes(" ") ? 1 : 0),
        );
        expect(i.message).to.match(message);
      });
    }

    it("a bare duration over its limit says it means seconds and suggests ms", () => {
      const i = only(BASE.replace("for: 0.2s", "for: 100"));
      expect(i).to.include({ code: "VALUE_INVALID", line: 16, path: "repetition.start.for" });
      expect(i.message).to.include("100 means 100 seconds; did you mean 100ms?");
    });

    it("a bare duration of 10 or more where it is usually short is a warning", () => {
      const cases: [string, string, string][] = [
        ["for: 0.2s", "for: 20", "repetition.start.for"],
        [
          "    exit: arm_elevation < 70",
          "    exit: arm_elevation < 70\n    min_dwell: 50",
          "phases.raised.min_dwell",
        ],
        [
          "    message: Keep your elbow straight.",
          "    message: Keep your elbow straight.\n    for: 30",
          "form[0].for",
        ],
        ["  start:", "  within: [500, 3000s]\n  start:", "repetition.within[0]"],
      ];
      for (const [from, to, path] of cases) {
        const i = only(BASE.replace(from, to));
        expect(i, to).to.include({ code: "DURATION_BARE_NUMBER", severity: "warning", path });
        expect(i.message, to).to.match(/means \d+ seconds; did you mean \d+ms\?/);
      }
      // With a unit, or below 10, a duration is taken as written.
      for (const to of ["for: 20s", "for: 2", "for: 20ms"])
        expect(issues(BASE.replace("for: 0.2s", to)), to).to.deep.equal([]);
    });
  });

  describe("thresholds outside a signal's range, wherever the condition is", () => {
    const cases: [string, string, string, string, RegExp][] = [
      [
        "a form rule",
        "elbow_angle < 130",
        "elbow_angle > 250",
        "form[0].when",
        /'elbow_angle > 250' can never hold, so the rule never fires: 'elbow_angle' is an angle in degrees and is always within \[0, 180\]/,
      ],
      [
        "the start condition",
        "for: 0.2s }",
        "for: 0.2s, when: elbow_angle > 190 }",
        "repetition.start.when",
        /'elbow_angle > 190' can never hold, so the start condition is never met and nothing is counted/,
      ],
      [
        "a phase's exit",
        "exit: arm_elevation < 70",
        "exit: arm_elevation < 70 or elbow_angle < -5",
        "phases.raised.exit",
        /'elbow_angle < -5' can never hold/,
      ],
      [
        "a phase's enter, in a condition that can hold",
        "enter: arm_elevation > 80",
        "enter: arm_elevation > 80 and arm_elevation < 200",
        "phases.raised.enter",
        /'arm_elevation < 200' always holds: .* within \[0, 180\]/,
      ],
      [
        "arithmetic on signals",
        "elbow_angle < 130",
        "elbow_angle - arm_elevation > 400",
        "form[0].when",
        /'elbow_angle - arm_elevation > 400' can never hold.*within \[-180, 180\]/,
      ],
    ];
    for (const [where, from, to, path, message] of cases) {
      it(`in ${where}`, () => {
        const i = only(BASE.replace(from, to));
        expect(i).to.include({ code: "THRESHOLD_OUT_OF_RANGE", severity: "warning", path });
        expect(i.message).to.match(message);
        expect(i.line).to.be.a("number");
      });
    }

    it("an unreachable phase is one error, not an error and a warning", () => {
      const i = only(BASE.replace("enter: arm_elevation > 80", "enter: arm_elevation > 200"));
      expect(i.code).to.equal("PHASE_UNREACHABLE");
    });
  });

  describe("one root error, nothing that follows from it", () => {
    const cases: [string, string, string, string, RegExp][] = [
      [
        "a misspelt exit",
        "    exit: arm_elevation > 60",
        "    exti: arm_elevation > 60",
        "UNKNOWN_KEY",
        /unknown key 'exti' in phase 'lowered' \(did you mean 'exit'\?\)/,
      ],
      [
        "a misspelt enter",
        "    enter: arm_elevation > 80",
        "    entr: arm_elevation > 80",
        "UNKNOWN_KEY",
        /did you mean 'enter'/,
      ],
      [
        "a misspelt top-level key",
        "repetition:\n",
        "repetiton:\n",
        "UNKNOWN_KEY",
        /did you mean 'repetition'/,
      ],
      [
        "a misspelt form rule key",
        "    message: Keep",
        "    mesage: Keep",
        "UNKNOWN_KEY",
        /did you mean 'message'/,
      ],
      [
        "an unknown landmark in a signal that metrics and sides rely on",
        "angle_to_vertical(shoulder, elbow)",
        "angle_to_vertical(shoulder, hand)",
        "UNKNOWN_LANDMARK",
        /unknown landmark 'hand' \(did you mean 'wrist'\?\)/,
      ],
      [
        "an unknown function in the only side-relative signal used by a rule",
        "angle2d(shoulder, elbow, wrist)",
        "angle2 (shoulder, elbow, wrist)",
        "UNKNOWN_FUNCTION",
        /did you mean 'angle'/,
      ],
      [
        "a sides value that is not a mode (no 'set sides' for every signal after it)",
        "sides: right",
        "sides: RIGHT",
        "VALUE_INVALID",
        /sides/,
      ],
      [
        "an entry of the cycle that is not a name (no 'phase twice in a row' after it)",
        "cycle: [lowered, raised, lowered]",
        "cycle: [lowered, [raised], lowered]",
        "TYPE_MISMATCH",
        /each entry of/,
      ],
      [
        "a phase missing from the cycle's list",
        "cycle: [lowered, raised, lowered]",
        "cycle: [lowered, rasied, lowered]",
        "UNKNOWN_PHASE",
        /did you mean 'raised'/,
      ],
    ];
    for (const [what, from, to, code, message] of cases) {
      it(what, () => {
        expect(BASE).to.include(from);
        const i = only(BASE.replace(from, to));
        expect(i.code).to.equal(code);
        expect(i.message).to.match(message);
        expect(i.line).to.be.a("number");
      });
    }

    it("a key with no likely meaning lists the keys that exist", () => {
      const i = only(
        BASE.replace("    exit: arm_elevation < 70", "    exit: arm_elevation < 70\n    wobble: 3"),
      );
      expect(i.message).to.include("expected one of enter, exit, hysteresis, min_dwell");
    });
  });

  describe("landmark names authors naturally write", () => {
    const cases: [string, string][] = [
      ["hand", "wrist"],
      ["left_hand", "left_wrist"],
      ["hand_left", "left_wrist"],
      ["toe", "foot_index"],
      ["right_toe", "right_foot_index"],
      ["finger", "index"],
      ["neck", "mid_shoulder"],
      ["pelvis", "mid_hip"],
      ["shouldr", "shoulder"],
    ];
    for (const [written, meant] of cases) {
      it(`${written} -> ${meant}`, () => {
        const i = only(
          BASE.replace("angle2d(shoulder, elbow, wrist)", `angle2d(shoulder, elbow, ${written})`),
        );
        expect(i.code).to.equal("UNKNOWN_LANDMARK");
        expect(i.message).to.include(`did you mean '${meant}'?`);
      });
    }

    it("says when the landmark meant is not in coco-17", () => {
      const i = only(
        BASE.replace("angle2d(shoulder, elbow, wrist)", "angle2d(shoulder, elbow, toe)"),
      );
      expect(i.message).to.include("blazepose-33 only");
    });
  });
});
