import { expect } from "chai";
import { createPrettyPrinter, printable } from "../../deploy/local/pretty-log.js";

describe("deploy/local/pretty-log: npm start's terminal lines", () => {
  const print = createPrettyPrinter(false);
  /** Whether the printed line holds a raw control or override character. */
  const raw = (out: string) => ["\n", "\r", "\x1b", "\u202e"].some((c) => out.includes(c));
  const forged = "spam\n[auth]             error  FORGED LINE\r\n\x1b[31mred\u202egnp.exe";

  it("keeps a logged value that came from a client on its one line, its controls escaped", () => {
    const out = print("authoring", {
      level: "info",
      msg: "movespec delisted",
      reason: forged,
      actor: "ops",
    });
    expect(raw(out)).to.equal(false);
    expect(out).to.contain(
      "reason=spam\\n[auth]             error  FORGED LINE\\r\\n\\u001b[31mred",
    );
    expect(out).to.contain("\\u202egnp.exe");
    expect(out).to.contain("actor=ops");
  });

  it("escapes the message, field names, raw lines and a dead child's last lines too", () => {
    expect(raw(print("x", { level: "info", msg: forged }))).to.equal(false);
    expect(print("x", { level: "info", msg: "m", [`k\nx`]: 1 })).to.contain("k\\nx=1");
    expect(raw(print("x", `raw ${forged}`))).to.equal(false);
    const quoted = print("launcher", { level: "error", msg: "died", last_lines: [forged] });
    // One line per quoted line (the printer's own), none from the value.
    expect(quoted.split("\n")).to.have.length(2);
  });

  it("leaves printable text alone, accents and other scripts included", () => {
    expect(printable("Élan 深蹲 — ok\t")).to.equal("Élan 深蹲 — ok\\t");
    expect(printable("plain")).to.equal("plain");
  });
});
