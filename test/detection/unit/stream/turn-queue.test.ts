import { connect, createServer, type Socket } from "node:net";
import { expect } from "chai";
import { TurnQueue } from "../../../../services/detection/stream/turn-queue.js";

/** Counts event-loop iterations: one increment per check phase, for as long as it runs. */
function loopCounter(): { readonly value: () => number; stop: () => void } {
  let iterations = 0;
  let running = true;
  const tick = () => {
    iterations += 1;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return { value: () => iterations, stop: () => (running = false) };
}

const setImmediateTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("detection TurnQueue (heavy steps of many sessions, one per event-loop turn)", () => {
  it("resumes waiters in the order they asked, each on an event-loop iteration of its own", async () => {
    const queue = new TurnQueue();
    const counter = loopCounter();
    const resumedAt: number[] = [];
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        queue.next().then(() => {
          order.push(i);
          resumedAt.push(counter.value());
        }),
      ),
    );
    counter.stop();
    expect(order).to.deep.equal(Array.from({ length: 30 }, (_, i) => i));
    expect(new Set(resumedAt).size, `iterations ${resumedAt.join(",")}`).to.equal(30);
    expect(queue.length).to.equal(0);
  });

  it("unlike setImmediate, which resumes waiters queued together in the same iteration", async () => {
    // The behaviour the queue exists to avoid, shown on the same measure.
    const counter = loopCounter();
    const resumedAt: number[] = [];
    await Promise.all(
      Array.from({ length: 30 }, () =>
        setImmediateTurn().then(() => resumedAt.push(counter.value())),
      ),
    );
    counter.stop();
    expect(new Set(resumedAt).size).to.be.below(3);
  });

  it("lets socket data in between two waiters' turns", async () => {
    // A message arrives while 20 heavy steps wait: it is read before the last of them runs.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const accepted = new Promise<Socket>((resolve) => server.once("connection", resolve));
    const client = connect(port, "127.0.0.1");
    const peer = await accepted;
    try {
      const events: string[] = [];
      peer.on("data", () => events.push("data"));
      const queue = new TurnQueue();
      const steps = Array.from({ length: 20 }, (_, i) =>
        queue.next().then(() => {
          events.push(`step ${i}`);
          // A heavy step: 2 ms of synchronous work.
          const until = performance.now() + 2;
          while (performance.now() < until);
          if (i === 0) client.write("x");
        }),
      );
      await Promise.all(steps);
      const dataAt = events.indexOf("data");
      expect(dataAt, events.join(", ")).to.be.above(0);
      expect(dataAt).to.be.below(events.indexOf("step 19"));
    } finally {
      client.destroy();
      peer.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
