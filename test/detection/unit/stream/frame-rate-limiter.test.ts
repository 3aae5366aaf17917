import { expect } from "chai";
import { createFrameRateLimiter } from "../../../../services/detection/stream/frame-rate-limiter.js";

describe("detection FrameRateLimiter", () => {
  it("allows the burst at once, then the sustained rate", () => {
    const limiter = createFrameRateLimiter(120, 120);
    expect(limiter.take(120, 0)).to.equal(true);
    expect(limiter.take(1, 0)).to.equal(false);
    expect(limiter.take(12, 100)).to.equal(true); // 100 ms at 120/s
    expect(limiter.take(1, 100)).to.equal(false);
  });

  it("never holds more than the burst, and refuses a batch without taking part of it", () => {
    const limiter = createFrameRateLimiter(30, 60);
    expect(limiter.take(1, 0)).to.equal(true);
    expect(limiter.take(61, 60_000)).to.equal(false);
    expect(limiter.take(60, 60_000)).to.equal(true);
  });

  it("keeps up with a client at 30 fps for a long time", () => {
    const limiter = createFrameRateLimiter(120, 120);
    for (let i = 0; i < 10_000; i += 1) expect(limiter.take(1, (i * 1000) / 30)).to.equal(true);
  });
});
