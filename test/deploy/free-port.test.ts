import { createServer, type Server } from "node:net";
import { expect } from "chai";
import { candidateSpans, ephemeralRange, freePort } from "../../deploy/local/free-port.js";

describe("deploy/local/free-port: ports for an ephemeral start", () => {
  it("reads the kernel's ephemeral range, and falls back to Linux's default", () => {
    expect(ephemeralRange(() => "32768\t60999\n")).to.deep.equal([32768, 60999]);
    expect(ephemeralRange(() => "1024 65535")).to.deep.equal([1024, 65535]);
    for (const text of ["", "abc", "60999 32768", "0 100", "1 70000"]) {
      expect(
        ephemeralRange(() => text),
        text,
      ).to.deep.equal([32768, 60999]);
    }
    expect(
      ephemeralRange(() => {
        throw new Error("no /proc");
      }),
    ).to.deep.equal([32768, 60999]);
  });

  it("chooses from 10,000 up, around the range, never in it", () => {
    expect(candidateSpans([32768, 60999])).to.deep.equal([
      [10_000, 32767],
      [61000, 65535],
    ]);
    expect(candidateSpans([10_001, 65534])).to.deep.equal([
      [10_000, 10_000],
      [65535, 65535],
    ]);
    expect(candidateSpans([10_000, 65535])).to.deep.equal([]);
    expect(candidateSpans([1024, 5000])).to.deep.equal([[10_000, 65535]]);
  });

  it("gives a port outside the range that can be bound, skipping taken and busy ones", async () => {
    const [low, high] = ephemeralRange();
    const busy: Server = createServer();
    // A port below the range that is in use: the first candidate the stubbed random points at.
    const busyPort = await new Promise<number>((resolve) => {
      const tryPort = (port: number) => {
        busy.once("error", () => tryPort(port + 1));
        busy.listen(port, "127.0.0.1", () => resolve(port));
      };
      tryPort(20_000);
    });
    try {
      const spans = candidateSpans([low, high]);
      const total = spans.reduce((sum, [from, to]) => sum + to - from + 1, 0);
      const at = (port: number) => (port - spans[0][0] + 0.5) / total;
      const picks = [at(busyPort), at(busyPort + 1), at(busyPort + 2)];
      const port = await freePort({
        taken: new Set([busyPort + 1]),
        random: () => picks.shift() ?? Math.random(),
      });
      // busyPort + 2 when it is free, as it almost always is; never the busy or the taken one.
      expect([busyPort, busyPort + 1]).to.not.include(port);
      expect(port < low || port > high).to.equal(true);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});
