import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createEngine, load, SIDES_MODES, sidesPlan } from "@movement-detection/movespec";
import { expect } from "chai";
import { ELBOW_SPEC, oneRep, sequence } from "./support/frames.js";

const DOC = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "docs", "movespec.md");

describe("MoveSpec sides modes", () => {
  it("every mode has a plan whose machines read exactly the sides it evaluates", () => {
    for (const mode of SIDES_MODES) {
      const plan = sidesPlan(mode);
      const read = new Set(plan.machines.flatMap((m) => m.sides));
      expect([...read].sort(), mode).to.deep.equal([...plan.evaluated].sort());
      for (const m of plan.machines) {
        expect(m.sides, mode).to.have.length(m.combine === "single" ? 1 : 2);
      }
    }
    expect(sidesPlan("both").machines.map((m) => m.sides)).to.deep.equal([["left"], ["right"]]);
  });

  it("the loader accepts every mode and names them all when refusing another", () => {
    for (const mode of SIDES_MODES) {
      const errors = load(ELBOW_SPEC({ sides: mode })).errors;
      // With `none`, the side-relative elbow is refused, but not the mode itself.
      expect(
        errors.map((e) => e.code),
        mode,
      ).to.deep.equal(mode === "none" ? ["SIDE_REQUIRED"] : []);
    }
    const refused = load(ELBOW_SPEC({ sides: "sideways" })).errors.filter(
      (e) => e.path === "sides",
    );
    expect(refused.map((e) => e.code)).to.deep.equal(["VALUE_INVALID"]);
    expect(refused[0].message).to.contain(SIDES_MODES.join(", "));
  });

  it("docs/movespec.md documents every mode and no other", () => {
    const section = readFileSync(DOC, "utf8").split("### Sides")[1].split("\n### ")[0];
    const rows = section
      .split("\n")
      .filter((l) => l.startsWith("| `"))
      .slice(1); // after the header
    const documented = rows.flatMap((row) =>
      [...row.split("|")[1].matchAll(/`(\w+)`/g)].map((m) => m[1]),
    );
    expect([...documented].sort()).to.deep.equal([...SIDES_MODES].sort());
  });

  describe("a side-relative signal in metrics, with sides none", () => {
    // Phases on the left elbow, named with its side: only `metrics` reads `elbow` plainly.
    const spec = (metrics: string) =>
      ELBOW_SPEC({
        sides: "none",
        phases: `  open:
    enter: left.elbow > 150
    exit: left.elbow < 140
    min_dwell: 0
  closed:
    enter: left.elbow < 60
    exit: left.elbow > 70
    min_dwell: 0`,
        extra: `metrics: ${metrics}`,
      });

    it("is accepted named with its side, as SIDE_REQUIRED suggests, and reported under that name", () => {
      const result = load(spec("[left.elbow, right.elbow]"));
      expect(result.errors).to.deep.equal([]);
      const engine = createEngine(result.spec!);
      // The right arm stays at 100 degrees while the left one makes the repetition.
      const frames = sequence(oneRep().map((left) => [left, 100] as [number, number]));
      const events = [...engine.pushMany(frames).events, ...engine.finish().events];
      const rep = events.find((e) => e.type === "rep.completed") as unknown as {
        metrics: { signals: Record<string, { min: number; max: number }> };
      };
      expect(Object.keys(rep.metrics.signals)).to.deep.equal(["left.elbow", "right.elbow"]);
      expect(rep.metrics.signals["left.elbow"].min).to.be.below(45);
      expect(rep.metrics.signals["right.elbow"].min).to.be.closeTo(100, 0.5);
      expect(rep.metrics.signals["right.elbow"].max).to.be.closeTo(100, 0.5);
    });

    it("unnamed, is refused at its entry of metrics, with the names to use there", () => {
      const errors = load(spec("[left.elbow, elbow]")).errors;
      expect(errors.map((e) => e.code)).to.deep.equal(["SIDE_REQUIRED"]);
      expect(errors[0].message).to.contain("metrics names 'elbow'");
      expect(errors[0].message).to.contain("name left.elbow / right.elbow there");
      // The line of `metrics` (the last of the MoveSpec), not the signal's.
      const line = spec("[left.elbow, elbow]")
        .split("\n")
        .findIndex((l) => l.startsWith("metrics:"));
      expect(errors[0].line).to.equal(line + 1);
      expect(errors[0].path).to.match(/^metrics/);
    });

    it("a side on a signal that has none, or an unknown side, is an error of metrics", () => {
      const plain = ELBOW_SPEC({ sides: "left", extra: "metrics: [left.elbow]" }).replace(
        "elbow: angle2d(shoulder, elbow, wrist)",
        "elbow: angle2d(left_shoulder, left_elbow, left_wrist)",
      );
      const refused = load(plain).errors;
      expect(refused.map((e) => e.code)).to.include("VALUE_INVALID");
      expect(refused.find((e) => e.code === "VALUE_INVALID")?.message).to.contain(
        "'elbow' does not depend on the side: name it 'elbow'",
      );
      expect(load(spec("[top.elbow]")).errors.map((e) => e.code)).to.deep.equal(["UNKNOWN_SIGNAL"]);
    });
  });
});
