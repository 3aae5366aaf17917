import { createIdGenerator, isUuid, newId } from "@movement-detection/shared/ids";
import { expect } from "chai";

describe("newId (UUIDv7)", () => {
  it("makes lowercase version-7, variant-1 UUIDs", () => {
    const id = newId();
    expect(isUuid(id)).to.equal(true);
    expect(id[14]).to.equal("7");
    expect(["8", "9", "a", "b"]).to.include(id[19]);
  });

  it("encodes the creation time in the first 48 bits", () => {
    const at = Date.UTC(2026, 10, 22, 10, 15, 30, 123);
    const id = createIdGenerator(() => at)();
    expect(Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16)).to.equal(at);
  });

  it("keeps creation order when its clock steps back, whatever the date", () => {
    let clock = Date.UTC(2040, 0, 1);
    const generate = createIdGenerator(() => clock);
    const first = generate();
    clock -= 60_000;
    const second = generate();
    expect(second > first).to.equal(true);
    expect(Number.parseInt(second.replace(/-/g, "").slice(0, 12), 16)).to.equal(
      Date.UTC(2040, 0, 1),
    );
  });

  it("sorts in creation order, even within one millisecond", () => {
    const ids = Array.from({ length: 5000 }, () => newId());
    expect([...ids].sort()).to.deep.equal(ids);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it("isUuid refuses anything but a lowercase UUID", () => {
    for (const value of ["", "x", newId().toUpperCase(), `${newId()} `, 42, null, undefined]) {
      expect(isUuid(value), String(value)).to.equal(false);
    }
  });
});
