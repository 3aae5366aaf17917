import { type Issue, LOAD_LIMITS, load, MOVESPEC_TEMPLATE } from "@movement-detection/movespec";
import { expect } from "chai";

/** A valid MoveSpec; cases below change one thing. Line numbers matter. */
const BASE = `movespec: 1
name: Test squat
signals:
  knee: angle(hip, knee, ankle)
phases:
  up:
    enter: knee > 160
    exit: knee < 150
  down:
    enter: knee < 100
    exit: knee > 110
sides: left
repetition:
  cycle: [up, down, up]
`;

function issue(yaml: string, code: string): Issue {
  const r = load(yaml);
  const all = [...r.errors, ...r.warnings];
  const found = all.find((i) => i.code === code);
  expect(found, `${code} not in ${JSON.stringify(all)}`).to.not.equal(undefined);
  return found!;
}

function errorsOf(yaml: string): string[] {
  return load(yaml).errors.map((e) => e.code);
}

describe("movespec load", () => {
  it("names YAML's not-a-number and infinities for what they are where a number belongs", () => {
    for (const [value, named] of [
      [".nan", "not-a-number (.nan)"],
      [".inf", "an infinity (.inf)"],
      ["-.Inf", "an infinity (.inf)"],
      ["deep", "text"],
    ]) {
      const found = issue(
        BASE.replace("    exit: knee < 150", `    exit: knee < 150\n    hysteresis: ${value}`),
        "TYPE_MISMATCH",
      );
      expect(found.message, value).to.equal(`hysteresis must be a number, found ${named}`);
    }
  });

  it("loads a valid MoveSpec with no issues", () => {
    const r = load(BASE);
    expect(r.errors).to.deep.equal([]);
    expect(r.warnings).to.deep.equal([]);
    expect(r.spec?.name).to.equal("Test squat");
    expect(r.spec?.topologies).to.deep.equal(["blazepose-33", "coco-17"]);
  });

  it("MOVESPEC_TEMPLATE loads with no errors and no warnings", () => {
    const r = load(MOVESPEC_TEMPLATE);
    expect(r.errors).to.deep.equal([]);
    expect(r.warnings).to.deep.equal([]);
    expect(r.spec).to.not.equal(undefined);
  });

  it("gives spec only when there are no errors, and never throws", () => {
    for (const input of [
      "",
      "   ",
      "null",
      "[]",
      "42",
      "movespec: 1",
      "::::",
      "\u0000",
      "{",
      undefined as unknown as string,
    ]) {
      const r = load(input);
      expect(r.spec).to.equal(undefined);
      expect(r.errors.length).to.be.greaterThan(0);
      for (const e of r.errors) expect(e.severity).to.equal("error");
    }
  });

  describe("errors point at the mistake (code, line, column, path)", () => {
    const cases: [string, string, string, Partial<Issue>][] = [
      [
        "YAML syntax",
        BASE.replace("cycle: [up, down, up]", "cycle: [up, down, up"),
        "YAML_SYNTAX",
        {},
      ],
      [
        "duplicate key",
        BASE.replace("name: Test squat", "name: Test squat\nname: again"),
        "YAML_DUPLICATE_KEY",
        { line: 3 },
      ],
      [
        "unknown key",
        BASE.replace("sides: left", "sides: left\nside_mode: x"),
        "UNKNOWN_KEY",
        { line: 13, column: 1, path: "side_mode" },
      ],
      [
        "unknown key with suggestion",
        BASE.replace("    exit: knee < 150", "    exitt: knee < 150"),
        "UNKNOWN_KEY",
        { line: 8, column: 5, path: "phases.up.exitt" },
      ],
      ["missing field", BASE.replace("name: Test squat\n", ""), "FIELD_REQUIRED", { path: "name" }],
      [
        "missing version",
        BASE.replace("movespec: 1\n", ""),
        "VERSION_MISSING",
        { path: "movespec" },
      ],
      [
        "unsupported version",
        BASE.replace("movespec: 1", "movespec: 2"),
        "VERSION_UNSUPPORTED",
        { line: 1, column: 11, path: "movespec" },
      ],
      [
        "wrong type",
        BASE.replace("cycle: [up, down, up]", "cycle: [up, down, up]\n  within: { min: true }"),
        "DURATION_INVALID",
        { line: 15, path: "repetition.within.min" },
      ],
      [
        "wrong type (map expected)",
        BASE.replace("repetition:\n  cycle: [up, down, up]\n", "repetition: 3\n"),
        "TYPE_MISMATCH",
        { line: 13, path: "repetition" },
      ],
      [
        "bad enum",
        BASE.replace("sides: left", "sides: lefty"),
        "VALUE_INVALID",
        { line: 12, column: 8, path: "sides" },
      ],
      [
        "bad duration",
        BASE.replace("    exit: knee < 150", "    exit: knee < 150\n    min_dwell: soon"),
        "DURATION_INVALID",
        { line: 9, column: 16, path: "phases.up.min_dwell" },
      ],
      [
        "bad name",
        BASE.replace("  knee: angle", "  Knee: angle"),
        "NAME_INVALID",
        { line: 4, column: 3 },
      ],
      [
        "expression syntax",
        BASE.replace("enter: knee > 160", "enter: knee >> 160"),
        "EXPRESSION_SYNTAX",
        { line: 7, column: 18, path: "phases.up.enter" },
      ],
      [
        "expression type",
        BASE.replace("enter: knee > 160", "enter: knee + 160"),
        "EXPRESSION_TYPE",
        { line: 7, column: 12, path: "phases.up.enter" },
      ],
      [
        "unknown function",
        BASE.replace("angle(hip, knee, ankle)", "angel(hip, knee, ankle)"),
        "UNKNOWN_FUNCTION",
        { line: 4, column: 9, path: "signals.knee" },
      ],
      [
        "argument count",
        BASE.replace("angle(hip, knee, ankle)", "angle(hip, knee)"),
        "ARGUMENT_COUNT",
        { line: 4, column: 9 },
      ],
      [
        "argument kind",
        BASE.replace("angle(hip, knee, ankle)", "angle(hip, knee, 3)"),
        "ARGUMENT_INVALID",
        { line: 4, column: 26 },
      ],
      [
        "unknown landmark",
        BASE.replace("angle(hip, knee, ankle)", "angle(hip, knee, ankel)"),
        "UNKNOWN_LANDMARK",
        { line: 4, column: 26, path: "signals.knee" },
      ],
      [
        "unknown signal",
        BASE.replace("enter: knee < 100", "enter: knees < 100"),
        "UNKNOWN_SIGNAL",
        { line: 10, column: 12, path: "phases.down.enter" },
      ],
      [
        "circular signals",
        BASE.replace("  knee: angle(hip, knee, ankle)", "  knee: other + 1\n  other: knee * 2"),
        "SIGNAL_CYCLE",
        { path: "signals.knee" },
      ],
      [
        "geometry in a condition",
        BASE.replace("enter: knee < 100", "enter: angle(hip, knee, ankle) < 100"),
        "CONDITION_NEEDS_SIGNAL",
        { line: 10, column: 12 },
      ],
      ["side needed", BASE.replace("sides: left\n", ""), "SIDE_REQUIRED", { path: "signals.knee" }],
      [
        "landmark missing from a declared topology",
        BASE.replace("sides: left", "sides: left\ntopologies: [coco-17]").replace(
          "angle(hip, knee, ankle)",
          "angle(knee, ankle, heel)",
        ),
        "LANDMARK_NOT_IN_TOPOLOGY",
        { line: 13, path: "topologies[0]" },
      ],
      [
        "a dangling arrow in a cycle (a closed cycle read as an open one)",
        BASE.replace("cycle: [up, down, up]", "cycle: up -> down ->"),
        "VALUE_INVALID",
        { line: 14, path: "repetition.cycle" },
      ],
      [
        "two arrows in a row in a cycle",
        BASE.replace("cycle: [up, down, up]", "cycle: up -> -> down -> up"),
        "VALUE_INVALID",
        { line: 14, path: "repetition.cycle" },
      ],
      [
        "an empty list of topologies (it would run on nothing)",
        BASE.replace("sides: left", "sides: left\ntopologies: []"),
        "VALUE_INVALID",
        { path: "topologies" },
      ],
      [
        "cycle with an undefined phase",
        BASE.replace("cycle: [up, down, up]", "cycle: [up, bottom, up]"),
        "UNKNOWN_PHASE",
        { line: 14, path: "repetition.cycle[1]" },
      ],
      [
        "unreachable phase",
        BASE.replace("enter: knee < 100", "enter: knee < -5").replace(
          "exit: knee > 110",
          "exit: knee > 0",
        ),
        "PHASE_UNREACHABLE",
        { line: 10, path: "phases.down.enter" },
      ],
      [
        "contradictory phase",
        BASE.replace("enter: knee < 100", "enter: knee < 100 and knee > 120"),
        "PHASE_UNREACHABLE",
        { path: "phases.down.enter" },
      ],
      [
        "overlapping phases",
        BASE.replace("enter: knee < 100", "enter: knee < 170").replace(
          "exit: knee > 110",
          "exit: knee > 175",
        ),
        "PHASES_OVERLAP",
        { line: 9, path: "phases.down.enter" },
      ],
      [
        "no hysteresis",
        BASE.replace("    exit: knee < 150\n", ""),
        "PHASE_NO_HYSTERESIS",
        { line: 6, column: 3, path: "phases.up" },
      ],
      [
        "zero-width hysteresis",
        BASE.replace("exit: knee < 150", "exit: knee <= 160"),
        "PHASE_NO_HYSTERESIS",
        { line: 8, path: "phases.up.exit" },
      ],
      [
        "exit overlapping enter",
        BASE.replace("exit: knee < 150", "exit: knee < 170"),
        "PHASE_EXIT_OVERLAPS_ENTER",
        { line: 8, column: 11, path: "phases.up.exit" },
      ],
      [
        "cycle too short",
        BASE.replace("cycle: [up, down, up]", "cycle: [up]"),
        "CYCLE_TOO_SHORT",
        { path: "repetition.cycle" },
      ],
      [
        "cycle repeats a phase",
        BASE.replace("cycle: [up, down, up]", "cycle: [up, up, down]"),
        "CYCLE_REPEATED_PHASE",
        { path: "repetition.cycle" },
      ],
      [
        "within min above max",
        BASE.replace("cycle: [up, down, up]", "cycle: [up, down, up]\n  within: [5s, 1s]"),
        "WITHIN_INVALID",
        { line: 15, path: "repetition.within" },
      ],
      [
        "duplicate form rule id",
        `${BASE}form:\n  - { id: a, when: knee < 10, message: m }\n  - { id: a, when: knee < 20, message: m }\n`,
        "DUPLICATE_ID",
        { line: 17 },
      ],
      [
        "nothing to detect",
        BASE.replace("repetition:\n  cycle: [up, down, up]\n", ""),
        "NOTHING_TO_DETECT",
        {},
      ],
      [
        "both exit and hysteresis",
        BASE.replace("    exit: knee < 150", "    exit: knee < 150\n    hysteresis: 5"),
        "VALUE_INVALID",
        { path: "phases.up.hysteresis" },
      ],
      [
        "number out of range",
        BASE.replace("sides: left", "sides: left\ntracking: { min_visibility: 2 }"),
        "VALUE_INVALID",
        { path: "tracking.min_visibility" },
      ],
    ];
    for (const [what, yaml, code, where] of cases) {
      it(`${code}: ${what}`, () => {
        const r = load(yaml);
        expect(r.spec).to.equal(undefined);
        const found = issue(yaml, code);
        expect(found.severity).to.equal("error");
        expect(found.message).to.be.a("string").and.have.length.greaterThan(10);
        expect(found.line, "every error has a line").to.be.a("number");
        expect(found.column).to.be.a("number");
        for (const [k, v] of Object.entries(where))
          expect(found[k as keyof Issue], `${k} of ${JSON.stringify(found)}`).to.equal(v);
      });
    }
  });

  describe("warnings", () => {
    const cases: [string, string, string, Partial<Issue>][] = [
      [
        "threshold outside the signal's range",
        BASE.replace("enter: knee > 160", "enter: knee > 160 and knee < 200"),
        "THRESHOLD_OUT_OF_RANGE",
        { path: "phases.up.enter" },
      ],
      [
        "phase no cycle uses",
        BASE.replace(
          "sides: left",
          "  middle:\n    enter: knee > 120 and knee < 140\n    exit: knee < 115 or knee > 145\nsides: left",
        ),
        "PHASE_UNUSED",
        { path: "phases.middle" },
      ],
      [
        "signal nothing uses",
        BASE.replace(
          "  knee: angle(hip, knee, ankle)",
          "  knee: angle(hip, knee, ankle)\n  spare: angle(hip, knee, ankle)",
        ),
        "SIGNAL_UNUSED",
        { path: "signals.spare" },
      ],
      [
        "laggy smoothing",
        BASE.replace("sides: left", "sides: left\nsmoothing: { ema: { time_constant: 0.5s } }"),
        "SMOOTHING_LAG",
        { path: "signals.knee" },
      ],
      [
        "laggy One Euro",
        BASE.replace("sides: left", "sides: left\nsmoothing: { one_euro: { min_cutoff: 0.5 } }"),
        "SMOOTHING_LAG",
        {},
      ],
      [
        "sides without side-relative landmarks",
        BASE.replace("angle(hip, knee, ankle)", "angle(left_hip, left_knee, left_ankle)"),
        "SIDES_UNUSED",
        { path: "sides" },
      ],
    ];
    for (const [what, yaml, code, where] of cases) {
      it(`${code}: ${what}`, () => {
        const r = load(yaml);
        expect(r.errors).to.deep.equal([]);
        expect(r.spec).to.not.equal(undefined);
        const found = issue(yaml, code);
        expect(found.severity).to.equal("warning");
        for (const [k, v] of Object.entries(where)) expect(found[k as keyof Issue]).to.equal(v);
      });
    }

    describe("GEOMETRY_DEGENERATE: a landmark named twice in a measurement", () => {
      const cases: [string, number][] = [
        ["angle2d(knee, knee, ankle)", 23],
        ["angle(hip, knee, hip)", 26],
        ["distance(left_ankle, left_ankle)", 30],
      ];
      for (const [expr, column] of cases) {
        it(expr, () => {
          const yaml = BASE.replace("angle(hip, knee, ankle)", expr);
          const r = load(yaml);
          expect(r.errors).to.deep.equal([]);
          expect(r.warnings.filter((w) => w.code === "GEOMETRY_DEGENERATE")).to.have.length(1);
          expect(issue(yaml, "GEOMETRY_DEGENERATE")).to.include({
            severity: "warning",
            line: 4,
            column,
            path: "signals.knee",
          });
        });
      }

      const degenerate = (expr: string, sides = "left") => {
        const r = load(
          BASE.replace("angle(hip, knee, ankle)", expr).replace("sides: left", `sides: ${sides}`),
        );
        expect(r.errors, `${expr} with sides: ${sides}`).to.deep.equal([]);
        return r.warnings.filter((w) => w.code === "GEOMETRY_DEGENERATE");
      };

      it("a side-relative name and the fixed one it resolves to: angle(knee, left_knee, ankle) with sides: left", () => {
        const yaml = BASE.replace("angle(hip, knee, ankle)", "angle(knee, left_knee, ankle)");
        expect(load(yaml).errors).to.deep.equal([]);
        expect(degenerate("angle(knee, left_knee, ankle)")).to.have.length(1);
        const found = issue(yaml, "GEOMETRY_DEGENERATE");
        expect(found).to.include({ line: 4, column: 21, path: "signals.knee" });
        expect(found.message).to.include("'knee' and 'left_knee'");
        expect(found.message).to.include("left side");
      });

      it("on any side the MoveSpec runs on, once per expression", () => {
        expect(degenerate("angle2d(left_knee, knee, ankle)", "both"), "both").to.have.length(1);
        expect(degenerate("angle2d(right_knee, knee, ankle)", "auto"), "auto").to.have.length(1);
        expect(degenerate("distance(knee, knee)", "both"), "both sides").to.have.length(1);
        expect(degenerate("distance(hip, left_hip) + distance(knee, left_knee)")).to.have.length(1);
        expect(degenerate("distance(opposite_hip, right_hip)")).to.have.length(1);
      });

      it("not for different landmarks, on every side", () => {
        for (const [expr, sides] of [
          ["angle(left_knee, right_knee, ankle)", "left"],
          ["angle(left_knee, right_knee, ankle)", "both"],
          ["distance(ankle, opposite_ankle)", "both"],
          ["angle2d(left_knee, knee, ankle)", "right"],
          ["distance(mid_hip, hip)", "either"],
        ])
          expect(degenerate(expr, sides), `${expr} with sides: ${sides}`).to.have.length(0);
      });
    });

    it("accepts EMA with alpha at a 30 fps reference, and warns when it lags", () => {
      expect(
        load(BASE.replace("sides: left", "sides: left\nsmoothing: { ema: { alpha: 0.5 } }"))
          .warnings,
      ).to.deep.equal([]);
      expect(
        issue(
          BASE.replace("sides: left", "sides: left\nsmoothing: { ema: { alpha: 0.1 } }"),
          "SMOOTHING_LAG",
        ).severity,
      ).to.equal("warning");
    });
  });

  describe("hostile YAML is refused fast, in bounded time and memory", () => {
    const timed = (yaml: string): { codes: string[]; ms: number } => {
      const start = process.hrtime.bigint();
      const r = load(yaml);
      return {
        codes: r.errors.map((e) => e.code),
        ms: Number(process.hrtime.bigint() - start) / 1e6,
      };
    };
    const billionLaughs = [
      'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      ...Array.from(
        { length: 9 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
      ),
    ].join("\n");
    const cases: [string, () => string, string[]][] = [
      [
        "an alias bomb (billion laughs)",
        () => billionLaughs,
        ["YAML_TOO_MANY_NODES", "YAML_TOO_MANY_ALIASES"],
      ],
      [
        "many aliases",
        () => `x: &x 1\nl: [${Array.from({ length: 500 }, () => "*x").join(", ")}]`,
        ["YAML_TOO_MANY_ALIASES"],
      ],
      ["deep flow nesting", () => `a: ${"[".repeat(5000)}${"]".repeat(5000)}`, ["YAML_TOO_DEEP"]],
      [
        "deep block nesting",
        () => Array.from({ length: 60 }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n"),
        ["YAML_TOO_DEEP"],
      ],
      [
        "a huge scalar",
        () => `movespec: 1\nname: x\ndescription: "${"a".repeat(100_000)}"`,
        ["YAML_SCALAR_TOO_LONG", "YAML_LINE_TOO_LONG"],
      ],
      [
        "a huge block scalar",
        () => `movespec: 1\ndescription: |\n${"  aaaaaaaaaa\n".repeat(2000)}`,
        ["YAML_SCALAR_TOO_LONG"],
      ],
      [
        "many documents",
        () => "movespec: 1\n---\nmovespec: 1\n---\n".repeat(1000),
        ["YAML_MULTIPLE_DOCUMENTS"],
      ],
      ["two documents", () => `${BASE}---\n${BASE}`, ["YAML_MULTIPLE_DOCUMENTS"]],
      [
        "a custom tag",
        () => `${BASE}description: !!js/function "function () {}"`,
        ["YAML_TAG_NOT_ALLOWED"],
      ],
      [
        "a local tag",
        () => BASE.replace("name: Test squat", "name: !shell rm -rf /"),
        ["YAML_TAG_NOT_ALLOWED"],
      ],
      [
        "too large",
        () => `movespec: 1\n# ${"x".repeat(LOAD_LIMITS.maxSourceBytes)}\n`,
        ["YAML_TOO_LARGE"],
      ],
      [
        "a huge mapping",
        () =>
          `movespec: 1\ntags:\n${Array.from({ length: 5000 }, (_, i) => `  k${i}: 1`).join("\n")}`,
        ["YAML_TOO_MANY_NODES"],
      ],
      [
        "a huge flow mapping on one line",
        () =>
          `movespec: 1\ntags: {${Array.from({ length: 5000 }, (_, i) => `k${i}: 1`).join(", ")}}`,
        ["YAML_LINE_TOO_LONG"],
      ],
      [
        "an alias bomb through merge keys",
        () =>
          [
            "a: &a { k0: 1, k1: 1, k2: 1, k3: 1, k4: 1, k5: 1, k6: 1, k7: 1, k8: 1 }",
            ...Array.from({ length: 9 }, (_, i) => {
              const [name, prev] = [String.fromCharCode(98 + i), String.fromCharCode(97 + i)];
              return `${name}: &${name} { <<: [${Array(9).fill(`*${prev}`).join(", ")}] }`;
            }),
          ].join("\n"),
        ["YAML_TOO_MANY_NODES", "YAML_TOO_MANY_ALIASES"],
      ],
    ];
    for (const [what, make, codes] of cases) {
      it(`refuses ${what}`, () => {
        const yaml = make();
        const { codes: got, ms } = timed(yaml);
        expect(
          got.some((c) => codes.includes(c)),
          `got ${got.join(", ")}`,
        ).to.equal(true);
        expect(ms, "milliseconds").to.be.lessThan(1500);
      });
    }

    /** `count` phases that all overlap each other (the worst case for the pairwise check). */
    const overlappingPhases = (count: number) =>
      `movespec: 1\nname: many\nsignals:\n  knee: angle(hip, knee, ankle)\nphases:\n${Array.from(
        { length: count },
        (_, i) => `  p${i}: { enter: knee > ${i}, exit: knee < ${i - 0.5} }`,
      ).join("\n")}\nrepetition:\n  cycle: [p0, p1, p0]\n`;

    it(`refuses a key longer than ${LOAD_LIMITS.maxKeyLength} characters, and takes one that long`, () => {
      const withKey = (length: number) => `${BASE}${"k".repeat(length)}: 1\n`;
      const codes = (source: string) => load(source).errors.map((e) => e.code);
      expect(codes(withKey(LOAD_LIMITS.maxKeyLength))).to.deep.equal(["UNKNOWN_KEY"]);
      expect(codes(withKey(LOAD_LIMITS.maxKeyLength + 1))).to.deep.equal(["YAML_SCALAR_TOO_LONG"]);
    });

    it(`refuses more than ${LOAD_LIMITS.maxPhases} phases at once, whatever they hold`, () => {
      const past = timed(overlappingPhases(LOAD_LIMITS.maxPhases + 1));
      expect(past.codes).to.deep.equal(["TOO_MANY_DEFINITIONS"]);
      expect(past.ms).to.be.lessThan(1500);
      // 2,000 phases (the largest mapping the YAML limits let through): as fast, one error.
      const most = timed(overlappingPhases(1999));
      expect(most.codes).to.deep.equal(["TOO_MANY_DEFINITIONS"]);
      expect(most.ms).to.be.lessThan(1500);
      // At the limit: read and checked pairwise (these all overlap: errors, but loaded quickly).
      const at = timed(overlappingPhases(LOAD_LIMITS.maxPhases));
      expect(at.codes).to.not.include("TOO_MANY_DEFINITIONS");
      expect(at.codes).to.include("PHASES_OVERLAP");
      expect(at.ms).to.be.lessThan(1500);
    });

    it(`refuses more than ${LOAD_LIMITS.maxSignals} signals and ${LOAD_LIMITS.maxAdaptiveSignals} adaptive ones`, () => {
      const withSignals = (plain: number, adaptive: number) =>
        BASE.replace(
          "  knee: angle(hip, knee, ankle)\n",
          `  knee: angle(hip, knee, ankle)\n${Array.from(
            { length: plain },
            (_, i) => `  s${i}: knee + ${i}\n`,
          ).join("")}${Array.from(
            { length: adaptive },
            (_, i) => `  a${i}: { adaptive: knee, rest: high, window: 10s, min_range: 20 }\n`,
          ).join("")}`,
        );
      const codesOf = (yaml: string) => timed(yaml).codes;
      expect(codesOf(withSignals(LOAD_LIMITS.maxSignals - 1, 0))).to.not.include(
        "TOO_MANY_DEFINITIONS",
      );
      expect(codesOf(withSignals(LOAD_LIMITS.maxSignals, 0))).to.include("TOO_MANY_DEFINITIONS");
      expect(codesOf(withSignals(0, LOAD_LIMITS.maxAdaptiveSignals))).to.not.include(
        "TOO_MANY_DEFINITIONS",
      );
      expect(codesOf(withSignals(0, LOAD_LIMITS.maxAdaptiveSignals + 1))).to.include(
        "TOO_MANY_DEFINITIONS",
      );
    });

    it("names a character outside the BMP whole in an expression error", () => {
      const r = load(BASE.replace("enter: knee > 160", "enter: knee > 160 🏋️"));
      const syntax = r.errors.find((e) => e.code === "EXPRESSION_SYNTAX");
      expect(syntax?.message).to.include("unexpected character '🏋'");
      expect(syntax?.message).to.not.include("\ufffd");
    });

    it("reads valid YAML the pre-scan could misjudge: a directive, brackets in single quotes", () => {
      const directive = load(`%YAML 1.2\n---\n${BASE}`);
      expect(directive.errors).to.deep.equal([]);
      expect(directive.spec?.name).to.equal("Test squat");
      const quoted = load(BASE.replace("name: Test squat", `name: '${"[".repeat(30)} squat'`));
      expect(quoted.errors).to.deep.equal([]);
      expect(quoted.spec?.name).to.equal(`${"[".repeat(30)} squat`);
      // Still refused: two documents, and real nesting.
      expect(load(`%YAML 1.2\n---\n${BASE}---\n${BASE}`).errors.map((e) => e.code)).to.include(
        "YAML_MULTIPLE_DOCUMENTS",
      );
      expect(load(`a: ${"[".repeat(30)}${"]".repeat(30)}`).errors.map((e) => e.code)).to.include(
        "YAML_TOO_DEEP",
      );
    });

    it("handles 256 KiB of ordinary YAML quickly", () => {
      const filler = Array.from(
        { length: 1500 },
        (_, i) => `# comment line ${i} ${"x".repeat(150)}`,
      ).join("\n");
      const { ms } = timed(`${BASE}${filler}\n`.slice(0, LOAD_LIMITS.maxSourceBytes - 10));
      expect(ms).to.be.lessThan(1500);
    });

    it("survives random garbage without throwing", () => {
      let seed = 42;
      const rand = () => {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        return seed / 0x7fffffff;
      };
      const alphabet = "abc:-[]{}&*!|>'\"#\n\t ,?%@`01.<=";
      for (let n = 0; n < 300; n++) {
        const s = Array.from(
          { length: Math.floor(rand() * 200) },
          () => alphabet[Math.floor(rand() * alphabet.length)],
        ).join("");
        const r = load(s);
        expect(r.spec === undefined || r.errors.length === 0).to.equal(true);
      }
      // Mutations of a valid MoveSpec as well.
      for (let n = 0; n < 300; n++) {
        const i = Math.floor(rand() * BASE.length);
        const s =
          BASE.slice(0, i) + alphabet[Math.floor(rand() * alphabet.length)] + BASE.slice(i + 1);
        expect(() => load(s)).to.not.throw();
      }
    });
  });

  describe("the language", () => {
    it("accepts cycles written as arrows, durations in ms and min, and hysteresis", () => {
      const yaml = BASE.replace(
        "cycle: [up, down, up]",
        "cycle: up -> down -> up\n  within: { min: 500ms, max: 1 min }",
      )
        .replace("    exit: knee < 150\n", "    hysteresis: 10\n")
        .replace("exit: knee > 110", "exit: knee > 110\n    min_dwell: 100ms");
      const r = load(yaml);
      expect(r.errors).to.deep.equal([]);
      expect(r.spec?.repetition?.minDuration).to.equal(0.5);
      expect(r.spec?.repetition?.maxDuration).to.equal(60);
      expect(r.spec?.phases[1].minDwell).to.be.closeTo(0.1, 1e-12);
    });

    it("derives partial-repetition progress from the start and target phases", () => {
      expect(load(BASE).spec?.repetition?.partial.progress).to.deep.equal({
        signal: "knee",
        from: 150,
        to: 100,
      });
    });

    it("reports every problem at once, sorted by position", () => {
      const yaml = BASE.replace("sides: left", "sides: nope")
        .replace("enter: knee < 100", "enter: kne < 100")
        .replace("name: Test squat", "name: Test\nextra: 1");
      const errors = load(yaml).errors;
      expect(errors.map((e) => e.code)).to.include.members([
        "UNKNOWN_KEY",
        "UNKNOWN_SIGNAL",
        "VALUE_INVALID",
      ]);
      const lines = errors.map((e) => e.line ?? 0);
      expect(lines).to.deep.equal([...lines].sort((a, b) => a - b));
    });

    it("reports the broken signal, not a load failure, when signals built on it are used twice", () => {
      // `slow` and `fast` both fail because `knee` does; `both_ways` reads them after they failed.
      const yaml = BASE.replace(
        "  knee: angle(hip, knee, ankle)",
        "  knee: nofn(hip, knee, ankle)\n  slow: knee * 2\n  fast: velocity(knee)\n  both_ways: slow + fast",
      ).replace("enter: knee > 160", "enter: knee > 160 and both_ways > 0");
      const { errors } = load(yaml);
      expect(errors.map((e) => e.code)).to.deep.equal(["UNKNOWN_FUNCTION"]);
      expect(errors[0]).to.include({ line: 4, path: "signals.knee" });
    });

    it("does not report a signal that failed as unknown where rules, start or metrics read it", () => {
      const yaml = BASE.replace(
        "  knee: angle(hip, knee, ankle)",
        "  knee: angle(hip, knee, ankle)\n  lean: nofn(mid_shoulder, mid_hip)",
      ).replace(
        "cycle: [up, down, up]",
        "cycle: [up, down, up]\n  start: { phase: up, when: lean < 20 }\nform:\n  - { id: chest_up, when: lean > 60, message: Chest up. }\nmetrics: [knee, lean]\nscoring:\n  depth: { signal: lean, from: 0, to: 40 }",
      );
      const { errors } = load(yaml);
      expect(errors.map((e) => e.code)).to.deep.equal(["UNKNOWN_FUNCTION"]);
      expect(errors[0]).to.include({ line: 5, path: "signals.lean" });
    });

    describe("expression errors point at the character, however the scalar is written", () => {
      const where = (enter: string, code: string) => {
        const found = issue(BASE.replace("    enter: knee < 100", `    enter: ${enter}`), code);
        expect(found.path).to.equal("phases.down.enter");
        return [found.line, found.column];
      };
      // The second '>' of `knee >> 3` is where the parser stops; `kne` is an unknown signal.
      const cases: [string, string, string, [number, number]][] = [
        ["plain, one line", "knee < 100 and knee >> 3", "EXPRESSION_SYNTAX", [10, 33]],
        [
          "plain, folded onto a second line",
          "knee < 100\n      and knee >> 3",
          "EXPRESSION_SYNTAX",
          [11, 17],
        ],
        [
          "plain, across an empty line",
          "knee < 100\n\n      and   kne < 3",
          "UNKNOWN_SIGNAL",
          [12, 13],
        ],
        [
          "double-quoted, after an escape",
          '"knee\\t< 100 and knee >> 3"',
          "EXPRESSION_SYNTAX",
          [10, 35],
        ],
        [
          "double-quoted, after a \\u escape",
          '"knee\\u0020< 100 and kne < 3"',
          "UNKNOWN_SIGNAL",
          [10, 33],
        ],
        [
          "double-quoted, folded onto a second line",
          '"knee < 100\n      and kne < 3"',
          "UNKNOWN_SIGNAL",
          [11, 11],
        ],
        [
          "double-quoted, after an escaped line break",
          '"knee < 100 and \\\n      kne < 3"',
          "UNKNOWN_SIGNAL",
          [11, 7],
        ],
        [
          "single-quoted, folded onto a second line",
          "'knee < 100\n      and kne < 3'",
          "UNKNOWN_SIGNAL",
          [11, 11],
        ],
        [
          "single-quoted, at a doubled quote",
          "'knee < 100 and ''x'''",
          "EXPRESSION_SYNTAX",
          [10, 28],
        ],
        // A block scalar is not mapped character by character: the error points at its start.
        ["a folded block", ">\n      knee < 100\n      and kne < 3", "UNKNOWN_SIGNAL", [10, 12]],
      ];
      for (const [what, enter, code, expected] of cases)
        it(what, () => expect(where(enter, code)).to.deep.equal(expected));
    });

    describe("YAML merge keys (<<)", () => {
      const merged = BASE.replace("  up:\n", "  up: &phase\n").replace(
        "  down:\n    enter: knee < 100\n    exit: knee > 110\n",
        "  down:\n    <<: *phase\n    enter: knee < 100\n    exit: knee > 110\n",
      );

      it("read as the keys of the mapping merged, keys written beside them winning", () => {
        const withDwell = (yaml: string) =>
          yaml.replace("    exit: knee < 150\n", "    exit: knee < 150\n    min_dwell: 0.3s\n");
        const r = load(withDwell(merged));
        expect(r.errors).to.deep.equal([]);
        expect(r.warnings).to.deep.equal([]);
        const written = withDwell(BASE).replace(
          "    exit: knee > 110\n",
          "    exit: knee > 110\n    min_dwell: 0.3s\n",
        );
        expect(r.spec).to.deep.equal(load(written).spec);
        // Written before the merge, a key still wins over the one merged.
        const before = withDwell(merged).replace(
          "    <<: *phase\n    enter: knee < 100\n",
          "    enter: knee < 100\n    <<: *phase\n",
        );
        expect(load(before).spec).to.deep.equal(load(written).spec);
      });

      it("a list of mappings merges each, the first one listed winning", () => {
        const up = merged.replace(
          "    exit: knee < 150\n",
          "    exit: knee < 150\n    min_dwell: 0.3s\n",
        );
        const dwell = (list: string) =>
          load(up.replace("    <<: *phase\n", `    <<: ${list}\n`)).spec?.phases[1].minDwell;
        expect(dwell("[{ min_dwell: 0.2s }, *phase]")).to.be.closeTo(0.2, 1e-12);
        expect(dwell("[*phase, { min_dwell: 0.2s }]")).to.be.closeTo(0.3, 1e-12);
      });

      it("a mistake in what was merged points at where it is written, with the path it has", () => {
        const yaml = merged.replace(
          "    enter: knee < 100\n    exit: knee > 110\n",
          "    enter: knee < 100\n",
        );
        const found = issue(yaml, "PHASE_EXIT_OVERLAPS_ENTER");
        expect(found).to.include({ line: 8, column: 11, path: "phases.down.exit" });
      });

      it("refuses a merge of something other than mappings, with one error there", () => {
        for (const value of ["5", "[*phase, 3]", "[]"]) {
          const yaml = merged.replace("    <<: *phase\n", `    <<: ${value}\n`);
          const { errors } = load(yaml);
          expect(errors, value).to.have.length(1);
          expect(errors[0], value).to.include({
            code: "TYPE_MISMATCH",
            line: 10,
            column: 9,
            path: "phases.down",
          });
          expect(errors[0].message).to.include("<<");
        }
      });

      it("a quoted '<<' is an ordinary key", () => {
        const yaml = merged.replace("    <<: *phase\n", '    "<<": *phase\n');
        expect(issue(yaml, "UNKNOWN_KEY")).to.include({ path: "phases.down.<<" });
      });
    });

    describe("a phase that failed hides nothing else", () => {
      const brokenUp = BASE.replace(
        "    exit: knee < 150",
        "    exit: knee < 150\n    min_dwell: x",
      );
      const codesAndPaths = (yaml: string) => load(yaml).errors.map((e) => [e.code, e.path]);

      it("reports the mistakes of repetition, hold and form, and not the phase as unknown", () => {
        const yaml = brokenUp.replace(
          "cycle: [up, down, up]",
          [
            "cycle: [up, down, up]",
            "  within: [5s, 1s]",
            "  start: { phase: up, for: soon }",
            "hold: { phase: up, target: 0s }",
            "form:",
            "  - { id: Deep, when: knee < 10, during: [up], message: m }",
            "  - { id: shallow, when: knee < 20, during: [up], severity: loud, message: m }",
          ].join("\n"),
        );
        expect(codesAndPaths(yaml)).to.deep.equal([
          ["DURATION_INVALID", "phases.up.min_dwell"],
          ["WITHIN_INVALID", "repetition.within"],
          ["DURATION_INVALID", "repetition.start.for"],
          ["VALUE_INVALID", "hold.target"],
          ["NAME_INVALID", "form[0].id"],
          ["VALUE_INVALID", "form[1].severity"],
        ]);
      });

      it("still reports a name no phase has, and a cycle wrong by name", () => {
        expect(
          codesAndPaths(brokenUp.replace("cycle: [up, down, up]", "cycle: [up, bottom, up]")),
        ).to.deep.equal([
          ["DURATION_INVALID", "phases.up.min_dwell"],
          ["UNKNOWN_PHASE", "repetition.cycle[1]"],
        ]);
        expect(
          codesAndPaths(brokenUp.replace("cycle: [up, down, up]", "cycle: [up, up, down]")),
        ).to.deep.equal([
          ["DURATION_INVALID", "phases.up.min_dwell"],
          ["CYCLE_REPEATED_PHASE", "repetition.cycle"],
        ]);
        expect(
          codesAndPaths(
            brokenUp.replace("cycle: [up, down, up]", "cycle: [up, down, up]\n  target: up"),
          ),
        ).to.deep.equal([
          ["DURATION_INVALID", "phases.up.min_dwell"],
          ["VALUE_INVALID", "repetition.target"],
        ]);
      });

      it("a phase whose name is invalid is still defined where it is named", () => {
        const yaml = BASE.replace("  up:\n", "  Up:\n").replace(
          "cycle: [up, down, up]",
          "cycle: [Up, down, Up]\nhold: { phase: Up, target: 0s }",
        );
        expect(codesAndPaths(yaml)).to.deep.equal([
          ["NAME_INVALID", "phases.Up"],
          ["VALUE_INVALID", "hold.target"],
        ]);
      });

      it("with no phases at all, a name is not reported as undefined", () => {
        const yaml = BASE.replace(/phases:\n(?: {2}.*\n)+/, "").replace(
          "cycle: [up, down, up]",
          "cycle: [up, down, up]\n  within: [5s, 1s]",
        );
        expect(codesAndPaths(yaml)).to.deep.equal([
          ["FIELD_REQUIRED", "phases"],
          ["WITHIN_INVALID", "repetition.within"],
        ]);
      });
    });

    it("chained comparisons and a not", () => {
      const yaml = BASE.replace("enter: knee < 100", "enter: 20 < knee < 100").replace(
        "exit: knee > 110",
        "exit: not (knee < 110)",
      );
      expect(errorsOf(yaml)).to.deep.equal([]);
    });
  });

  describe("adaptive signals", () => {
    /** Lines: 6 depth, 7 adaptive, 8 rest, 9 min_range, 11 up, 12 down. */
    const ADAPTIVE = `movespec: 1
name: Adaptive squat
sides: left
signals:
  knee: angle(hip, knee, ankle)
  depth:
    adaptive: knee
    rest: high
    min_range: 20
phases:
  up: { enter: depth < 0.3, exit: depth > 0.4 }
  down: { enter: depth > 0.6, exit: depth < 0.5 }
repetition:
  cycle: [up, down, up]
form:
  - { id: too_deep, when: knee < 60, during: [down], message: Not quite so deep. }
`;

    it("load with their defaults, side-relative like their source, valued 0..1", () => {
      const r = load(ADAPTIVE);
      expect(r.errors).to.deep.equal([]);
      expect(r.warnings).to.deep.equal([]);
      const depth = r.spec!.signals.find((s) => s.name === "depth")!;
      expect(depth.adaptive).to.deep.equal({
        rest: "high",
        window: 5,
        percentiles: [10, 90],
        minRange: 20,
      });
      expect(depth.sided).to.equal(true);
      expect(depth.range).to.deep.equal([0, 1]);
      expect(depth.smoothing).to.deep.equal({ kind: "none" });
      // The gate is the source's landmarks; the form rule reads the source in degrees.
      expect(r.spec!.tracking.landmarks).to.have.members(["hip", "knee", "ankle"]);
      expect(r.spec!.metrics).to.deep.equal(["depth"]);
    });

    it("read every setting, and a source on a named side (then not side-relative)", () => {
      const yaml = ADAPTIVE.replace("sides: left\n", "")
        .replace(
          "form:\n  - { id: too_deep, when: knee < 60, during: [down], message: Not quite so deep. }\n",
          "",
        )
        .replace(
          "adaptive: knee",
          "adaptive: right.knee\n    window: 8s\n    percentiles: [5, 95]",
        );
      const r = load(yaml);
      expect(r.errors).to.deep.equal([]);
      const depth = r.spec!.signals.find((s) => s.name === "depth")!;
      expect(depth.sided).to.equal(false);
      expect(depth.adaptive).to.deep.include({ window: 8, percentiles: [5, 95] });
      // With sides: none only the named side's landmarks exist for the gate.
      expect(r.spec!.tracking.landmarks).to.include.members([
        "right_hip",
        "right_knee",
        "right_ankle",
      ]);
    });

    const errors: [string, string, string, Partial<Issue>][] = [
      [
        "an expression instead of a signal name",
        ADAPTIVE.replace("adaptive: knee", "adaptive: knee * 2"),
        "ADAPTIVE_SOURCE_INVALID",
        { line: 7, column: 15, path: "signals.depth.adaptive" },
      ],
      [
        "an adaptive source",
        ADAPTIVE.replace(
          "phases:",
          "  again: { adaptive: depth, rest: low, min_range: 0.2 }\nphases:",
        ).replace("depth > 0.6", "depth > 0.6 and again > 0.5"),
        "ADAPTIVE_SOURCE_INVALID",
        { line: 10, path: "signals.again.adaptive" },
      ],
      [
        "an unknown source",
        ADAPTIVE.replace("adaptive: knee", "adaptive: kne"),
        "UNKNOWN_SIGNAL",
        { line: 7, column: 15 },
      ],
      [
        "itself as the source",
        ADAPTIVE.replace("adaptive: knee", "adaptive: depth"),
        "SIGNAL_CYCLE",
        { path: "signals.depth" },
      ],
      [
        "a min_range the source can never span",
        ADAPTIVE.replace("min_range: 20", "min_range: 200"),
        "ADAPTIVE_MIN_RANGE_UNREACHABLE",
        { line: 9, column: 16, path: "signals.depth.min_range" },
      ],
      ["no rest", ADAPTIVE.replace("    rest: high\n", ""), "FIELD_REQUIRED", { line: 7 }],
      ["no min_range", ADAPTIVE.replace("    min_range: 20\n", ""), "FIELD_REQUIRED", { line: 7 }],
      [
        "a rest that is neither low nor high",
        ADAPTIVE.replace("rest: high", "rest: up"),
        "VALUE_INVALID",
        { line: 8, path: "signals.depth.rest" },
      ],
      [
        "a min_range of 0",
        ADAPTIVE.replace("min_range: 20", "min_range: 0"),
        "VALUE_INVALID",
        { line: 9, path: "signals.depth.min_range" },
      ],
      [
        "a window under a second",
        ADAPTIVE.replace("rest: high", "rest: high\n    window: 500ms"),
        "VALUE_INVALID",
        { line: 9, path: "signals.depth.window" },
      ],
      [
        "a window over a minute",
        ADAPTIVE.replace("rest: high", "rest: high\n    window: 2 min"),
        "VALUE_INVALID",
        { line: 9, path: "signals.depth.window" },
      ],
      [
        "percentiles out of order",
        ADAPTIVE.replace("rest: high", "rest: high\n    percentiles: [90, 10]"),
        "VALUE_INVALID",
        { line: 9, path: "signals.depth.percentiles" },
      ],
      [
        "a percentile above 100",
        ADAPTIVE.replace("rest: high", "rest: high\n    percentiles: [10, 190]"),
        "VALUE_INVALID",
        { line: 9 },
      ],
      [
        "an expr beside adaptive",
        ADAPTIVE.replace("rest: high", "rest: high\n    expr: knee"),
        "VALUE_INVALID",
        { line: 9, path: "signals.depth.expr" },
      ],
      [
        "smoothing on the adaptive signal",
        ADAPTIVE.replace("rest: high", "rest: high\n    smoothing: none"),
        "VALUE_INVALID",
        { line: 9, path: "signals.depth.smoothing" },
      ],
      [
        "an unknown setting",
        ADAPTIVE.replace("rest: high", "rest: high\n    windw: 3s"),
        "UNKNOWN_KEY",
        { line: 9, path: "signals.depth.windw" },
      ],
      [
        "a threshold above 1 (the far end)",
        ADAPTIVE.replace("enter: depth > 0.6", "enter: depth > 1"),
        "PHASE_UNREACHABLE",
        { line: 12, path: "phases.down.enter" },
      ],
    ];
    for (const [what, yaml, code, where] of errors) {
      it(`${code}: ${what}`, () => {
        const r = load(yaml);
        expect(r.spec).to.equal(undefined);
        const found = issue(yaml, code);
        expect(found.severity).to.equal("error");
        for (const [k, v] of Object.entries(where))
          expect(found[k as keyof Issue], `${k} of ${JSON.stringify(found)}`).to.equal(v);
      });
    }

    it("warn about a threshold outside 0..1 and a min_range that lets noise count", () => {
      const outside = issue(
        ADAPTIVE.replace("enter: depth > 0.6", "enter: depth > 0.6 and depth < 1.5"),
        "THRESHOLD_OUT_OF_RANGE",
      );
      expect(outside).to.include({ severity: "warning", line: 12, path: "phases.down.enter" });
      expect(outside.message).to.include("adaptive");
      const small = issue(
        ADAPTIVE.replace("min_range: 20", "min_range: 1"),
        "ADAPTIVE_MIN_RANGE_SMALL",
      );
      expect(small).to.include({ severity: "warning", line: 9, path: "signals.depth.min_range" });
      expect(load(ADAPTIVE.replace("min_range: 20", "min_range: 1")).spec).to.not.equal(undefined);
    });
  });

  it("mean_visible takes signal names, and needs the landmarks on either side only", () => {
    const yaml = BASE.replace("sides: left\n", "").replace(
      "  knee: angle(hip, knee, ankle)",
      "  one: angle(hip, knee, ankle)\n  knee: mean_visible(left.one, right.one)",
    );
    const r = load(yaml);
    expect(r.errors).to.deep.equal([]);
    expect(r.warnings).to.deep.equal([]);
    expect(r.spec!.tracking.landmarks).to.have.members(["hip", "knee", "ankle"]);
    const bad = load(
      yaml.replace("mean_visible(left.one, right.one)", "mean_visible(left.one * 2, right.one)"),
    );
    expect(bad.errors.map((e) => [e.code, e.line, e.column])).to.deep.equal([
      ["ARGUMENT_INVALID", 5, 22],
    ]);
  });

  it("accepts scale: height, and refuses an unknown scale", () => {
    expect(load(BASE.replace("sides: left", "sides: left\nscale: height")).spec?.scale).to.equal(
      "height",
    );
    expect(
      issue(BASE.replace("sides: left", "sides: left\nscale: width"), "VALUE_INVALID"),
    ).to.include({ path: "scale" });
  });
});
