/**
 * scalarOffsets (movespec/load/scalar-offsets.ts): every character of a flow scalar's value is
 * traced back to what produced it in the source, and a scalar it cannot replay is not traced.
 */

import { type FlowStyle, scalarOffsets } from "@movement-detection/movespec/load";
import { expect } from "chai";
import { isMap, isPair, isScalar, parseDocument, Scalar } from "yaml";

const STYLES: Record<string, FlowStyle> = {
  [Scalar.PLAIN]: "plain",
  [Scalar.QUOTE_SINGLE]: "single",
  [Scalar.QUOTE_DOUBLE]: "double",
};

/** The values of `source`'s top-level mapping, with their offsets (undefined: not traced). */
function traced(source: string): { value: string; offsets?: number[] }[] {
  const doc = parseDocument(source, { schema: "core", version: "1.2" });
  expect(doc.errors, source).to.deep.equal([]);
  expect(isMap(doc.contents)).to.equal(true);
  const items = isMap(doc.contents) ? doc.contents.items : [];
  return items.map((pair) => {
    const node = isPair(pair) ? pair.value : undefined;
    if (!isScalar(node) || !node.range) throw new Error("a scalar expected");
    const value = String(node.value);
    const style = node.type ? STYLES[node.type] : undefined;
    if (!style) return { value };
    const quote = style === "plain" ? 0 : 1;
    const [start, end] = node.range;
    return { value, offsets: scalarOffsets(source, start + quote, end - quote, style, value) };
  });
}

describe("MoveSpec scalar offsets", () => {
  const scalars = [
    "a: knee < 100 and knee > 3",
    "a: knee < 100\n  and knee > 3   \n  or x",
    "a: knee\n\n\n   < 100",
    "a: knee\r\n  < 100\r\n",
    'a: "knee\\t< 100 \\u00e9\\x41\\U0001F3CB \\" \\\\ \\/ \\N"',
    'a: "knee < 100  \n \n    and \\\n  x  "',
    'a: "  spaced \\  \n  "',
    "a: 'it''s ''quoted'''",
    "a: 'knee < 100\n   and x'",
  ];
  for (const yaml of scalars) {
    it(JSON.stringify(yaml.slice(3)), () => {
      for (const { value, offsets } of traced(yaml)) {
        expect(offsets, "traced")
          .to.be.an("array")
          .with.length(value.length + 1);
        value.split("").forEach((ch, i) => {
          const at = yaml[offsets![i]];
          // A character comes from itself, a line break folded, an escape, or a doubled quote.
          const from = at === ch || at === "\n" || at === "\r" || at === "\\" || at === "'";
          expect(from, `${JSON.stringify(ch)} at ${i} traced to ${JSON.stringify(at)}`).to.equal(
            true,
          );
          if (/[a-z0-9<>]/.test(ch)) expect(at, `${ch} at ${i}`).to.equal(ch);
        });
        // Offsets never go backwards, and the end is after the last character.
        for (let i = 1; i < offsets!.length; i++)
          expect(offsets![i]).to.be.at.least(offsets![i - 1]);
      }
    });
  }

  it("does not trace a value it cannot replay (a number written otherwise than it prints)", () => {
    const source = "a: 1.50";
    expect(scalarOffsets(source, 3, 7, "plain", "1.5")).to.equal(undefined);
    expect(scalarOffsets(source, 3, 7, "plain", "1.50")).to.deep.equal([3, 4, 5, 6, 7]);
  });
});
