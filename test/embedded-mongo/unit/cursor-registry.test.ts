import { expect } from "chai";
import { CursorRegistry } from "../../../services/embedded-mongo/cursor-registry.js";

const docs = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({ _id: `${tag}${i}` }));
const idOf = (reply: Record<string, unknown>) => Number(reply.id);

describe("embedded-mongo cursor registry: the results open cursors hold are bounded", () => {
  it("closes the least recently used cursors past the bound; their getMore is CursorNotFound", () => {
    const registry = new CursorRegistry(600_000, 100);
    try {
      const a = idOf(registry.open("db.c", docs(41, "a"), 1));
      const b = idOf(registry.open("db.c", docs(41, "b"), 1));
      expect(registry.usage).to.deep.equal({ cursors: 2, bufferedResults: 80 });
      // a used since b was opened: b is now the least recently used.
      expect(registry.getMore(a, "db.c", 1).nextBatch).to.deep.equal([{ _id: "a1" }]);
      const c = idOf(registry.open("db.c", docs(41, "c"), 1));
      expect(registry.usage).to.deep.equal({ cursors: 2, bufferedResults: 79 });
      expect(() => registry.getMore(b, "db.c", 1)).to.throw(/cursor id \d+ not found/);
      expect(registry.getMore(a, "db.c", 1).nextBatch).to.deep.equal([{ _id: "a2" }]);
      expect(registry.getMore(c, "db.c", 0).nextBatch).to.have.length(40);
      expect(registry.usage).to.deep.equal({ cursors: 1, bufferedResults: 38 });
      // At the bound exactly: nothing is closed; one past it: the oldest is.
      registry.open("db.c", docs(63, "d"), 1);
      expect(registry.usage).to.deep.equal({ cursors: 2, bufferedResults: 100 });
      registry.open("db.c", docs(2, "e"), 1);
      expect(registry.usage).to.deep.equal({ cursors: 2, bufferedResults: 63 });
      // One cursor larger than the bound on its own is still served whole.
      const big = idOf(registry.open("db.c", docs(500, "f"), 1));
      expect(registry.usage).to.deep.equal({ cursors: 1, bufferedResults: 499 });
      expect(registry.getMore(big, "db.c", 0).nextBatch).to.have.length(499);
      expect(registry.usage).to.deep.equal({ cursors: 0, bufferedResults: 0 });
    } finally {
      registry.close();
    }
  });

  it("batchSize 0 opens the cursor with an empty first batch; kill frees what it held", () => {
    const registry = new CursorRegistry(600_000, 100);
    try {
      const reply = registry.open("db.c", docs(5, "a"), 0);
      expect(reply.firstBatch).to.deep.equal([]);
      expect(idOf(reply)).to.be.above(0);
      expect(registry.usage).to.deep.equal({ cursors: 1, bufferedResults: 5 });
      expect(registry.kill(idOf(reply))).to.equal(true);
      expect(registry.usage).to.deep.equal({ cursors: 0, bufferedResults: 0 });
      // Nothing to hand out: no cursor, whatever the batch size.
      expect(idOf(registry.open("db.c", [], 0))).to.equal(0);
    } finally {
      registry.close();
    }
  });
});
