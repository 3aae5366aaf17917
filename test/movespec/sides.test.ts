import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { load } from "../../movespec/index.js";
import { SIDES_MODES, sidesPlan } from "../../movespec/sides.js";
import { ELBOW_SPEC } from "./support/frames.js";

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
});
