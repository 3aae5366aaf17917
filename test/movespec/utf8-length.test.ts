/**
 * The loader measures a MoveSpec's size in UTF-8 without Node's Buffer (it also runs in browsers:
 * MoveSpec Studio validates as you type with it): the same count as Buffer.byteLength.
 */

import { LOAD_LIMITS, load } from "@movement-detection/movespec";
import { utf8Length } from "@movement-detection/movespec/load";
import { expect } from "chai";

describe("utf8Length (the loader's size limit, without Buffer)", () => {
  it("counts as Buffer.byteLength does: ASCII, 2-, 3- and 4-byte characters, lone surrogates", () => {
    for (const text of [
      "",
      "movespec: 1",
      "é",
      "€ and ü",
      "🏋️ squat 👍",
      "a\ud800b",
      "\udc00",
      "x\ud83d",
    ]) {
      expect(utf8Length(text), JSON.stringify(text)).to.equal(Buffer.byteLength(text, "utf8"));
    }
  });

  it("refuses a MoveSpec one byte past the limit, counted in UTF-8 (not characters)", () => {
    const max = LOAD_LIMITS.maxSourceBytes;
    const head = "movespec: 1\n#";
    const twoByte = Math.floor((max - head.length) / 2);
    const at = `${head}${"é".repeat(twoByte)}${"a".repeat(max - head.length - 2 * twoByte)}`;
    expect(Buffer.byteLength(at)).to.equal(max);
    expect(load(at).errors.map((e) => e.code)).to.not.include("YAML_TOO_LARGE");
    const past = `${at}a`;
    expect(past.length).to.be.lessThan(max);
    expect(load(past).errors.map((e) => e.code)).to.include("YAML_TOO_LARGE");
  });
});
