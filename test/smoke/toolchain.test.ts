import { expect } from "chai";

describe("toolchain", () => {
  it("runs TypeScript tests", () => {
    const add = (a: number, b: number): number => a + b;
    expect(add(1, 2)).to.equal(3);
  });
});
