/**
 * The credential-failure limiter (services/auth/operations/failure-limiter.ts): the failure that
 * reaches the limit blocks the address for the block duration, however short the window.
 */
import { expect } from "chai";
import { createFailureLimiter } from "../../services/auth/operations/failure-limiter.js";

describe("credential failure limiter", () => {
  it("one failure below the limit: not blocked; at the limit: blocked for the block duration, not the window", async () => {
    const limiter = createFailureLimiter({ points: 3, windowSeconds: 1, blockSeconds: 30 });
    await limiter.recordFailure("10.0.0.1");
    await limiter.recordFailure("10.0.0.1");
    expect(await limiter.blockedFor("10.0.0.1")).to.equal(0);
    await limiter.recordFailure("10.0.0.1");
    // Rounded up to whole seconds: 30 s from the failure that reached the limit.
    expect(await limiter.blockedFor("10.0.0.1")).to.equal(30);
  });

  it("counts each address alone", async () => {
    const limiter = createFailureLimiter({ points: 2, windowSeconds: 60, blockSeconds: 120 });
    await limiter.recordFailure("10.0.0.1");
    await limiter.recordFailure("10.0.0.1");
    expect(await limiter.blockedFor("10.0.0.1")).to.equal(120);
    expect(await limiter.blockedFor("10.0.0.2")).to.equal(0);
    await limiter.recordFailure("10.0.0.2");
    expect(await limiter.blockedFor("10.0.0.2")).to.equal(0);
  });

  it("a block shorter than the window still blocks from the failure that reached the limit", async () => {
    const limiter = createFailureLimiter({ points: 1, windowSeconds: 600, blockSeconds: 5 });
    await limiter.recordFailure("10.0.0.1");
    expect(await limiter.blockedFor("10.0.0.1")).to.equal(5);
  });
});
