import { expect } from "chai";
import { SortedList } from "../../../services/embedded-mongo/storage/sorted-list.js";

describe("embedded-mongo SortedList", () => {
  const numbers = () => new SortedList<number>((a, b) => a - b);

  it("keeps items ordered through many inserts and removals across chunks", () => {
    const list = numbers();
    const values = Array.from({ length: 5000 }, (_, i) => (i * 7919) % 5000);
    for (const v of values) list.insert(v);
    expect(list.size).to.equal(5000);
    expect([...list.all()]).to.deep.equal([...values].sort((a, b) => a - b));
    for (let v = 0; v < 5000; v += 2) expect(list.remove(v)).to.equal(true);
    expect(list.remove(2)).to.equal(false);
    const left = [...list.all()];
    expect(left).to.have.length(2500);
    expect(left.every((v, i) => v === i * 2 + 1)).to.equal(true);
  });

  it("scans and counts ranges forwards and backwards", () => {
    const list = numbers();
    for (let v = 0; v < 3000; v++) list.insert(v);
    const from = list.lowerBound(1000);
    const to = list.lowerBound(2500);
    expect(list.countBetween(from, to)).to.equal(1500);
    const forward = [...list.range(from, to)];
    expect(forward[0]).to.equal(1000);
    expect(forward.at(-1)).to.equal(2499);
    const backward = [...list.range(from, to, true)];
    expect(backward[0]).to.equal(2499);
    expect(backward).to.have.length(1500);
    expect([...list.range(list.lowerBound(5000), list.end())]).to.deep.equal([]);
  });
});
