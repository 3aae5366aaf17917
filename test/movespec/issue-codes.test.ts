import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ISSUE_CODES, isIssueCode, load } from "@movement-detection/movespec";
import { expect } from "chai";

const DOC = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "docs", "movespec.md");

/** The rows of the table under "## Validation issues": code, severity, meaning. */
function documentedCodes(): { code: string; severity: string; meaning: string }[] {
  const section = readFileSync(DOC, "utf8").split("\n## Validation issues")[1]?.split("\n## ")[0];
  expect(section, "docs/movespec.md has a 'Validation issues' section").to.be.a("string");
  return section!
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const [code, severity, meaning] = line
        .split("|")
        .slice(1, 4)
        .map((cell) => cell.trim());
      return { code: code.replace(/`/g, ""), severity, meaning };
    });
}

describe("MoveSpec validation issue codes", () => {
  it("docs/movespec.md lists every code with its severity and a meaning, and no other code", () => {
    const rows = documentedCodes();
    const documented = Object.fromEntries(rows.map((r) => [r.code, r.severity]));
    expect(rows.map((r) => r.code)).to.have.length(new Set(rows.map((r) => r.code)).size);
    expect(documented).to.deep.equal({ ...ISSUE_CODES });
    for (const r of rows) expect(r.meaning, r.code).to.not.equal("");
  });

  it("isIssueCode accepts the codes only (not inherited names)", () => {
    for (const code of Object.keys(ISSUE_CODES)) expect(isIssueCode(code), code).to.equal(true);
    for (const other of ["", "constructor", "toString", "__proto__", "yaml_syntax", 42, null])
      expect(isIssueCode(other), String(other)).to.equal(false);
  });

  it("the issues load() reports carry a known code with its documented severity", () => {
    const broken = [
      "",
      "movespec: 2\nname: x\nsignals: {}\nphases: {}\n",
      "movespec: 1\nname: x\nsides: left\nsignals:\n  a: angle(hip, knee, ankle)\n  b: angle(hip, knee, ankle)\nphases:\n  up: { enter: a > 200, exit: a < 150 }\n  down: { enter: a < 100, exit: a > 110 }\n  idle: { enter: a > 120 and a < 130, exit: a > 131 or a < 119 }\nrepetition:\n  cycle: [up, down, up]\n",
    ];
    let seen = 0;
    for (const yaml of broken) {
      const { errors, warnings } = load(yaml);
      for (const i of [...errors, ...warnings]) {
        expect(isIssueCode(i.code), i.code).to.equal(true);
        expect(i.severity, i.code).to.equal(ISSUE_CODES[i.code]);
        seen++;
      }
    }
    expect(seen).to.be.greaterThan(3);
  });
});
