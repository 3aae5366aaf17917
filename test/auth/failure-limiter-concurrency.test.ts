/**
 * Checks in flight count against the failure limit (services/auth/operations/failure-limiter.ts
 * `admit`): concurrent guesses cannot all pass the "blocked?" test before the first failure is
 * recorded, and concurrent valid checks are delayed, never refused.
 */
import { expect } from "chai";
import { createFailureLimiter } from "../../services/auth/operations/failure-limiter.js";

const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

describe("credential failure limiter: concurrent checks", () => {
  it("of 100 concurrent failing checks, only as many as the limit run; the rest are blocked", async () => {
    const limiter = createFailureLimiter({ points: 5, windowSeconds: 60, blockSeconds: 60 });
    let inFlight = 0;
    let most = 0;
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, async () => {
        const admission = await limiter.admit("10.0.0.1");
        if (admission.blockedFor > 0) return "blocked";
        inFlight += 1;
        most = Math.max(most, inFlight);
        try {
          await tick(); // the credential lookup
          await limiter.recordFailure("10.0.0.1");
          return "checked";
        } finally {
          inFlight -= 1;
          admission.release();
        }
      }),
    );
    expect(outcomes.filter((o) => o === "checked")).to.have.length(5);
    expect(outcomes.filter((o) => o === "blocked")).to.have.length(95);
    expect(most).to.equal(5);
    expect(await limiter.blockedFor("10.0.0.1")).to.equal(60);
  });

  it("100 concurrent valid checks all run, at most the limit at a time; another address is not held up", async () => {
    const limiter = createFailureLimiter({ points: 5, windowSeconds: 60, blockSeconds: 60 });
    await limiter.recordFailure("10.0.0.1"); // one failure left over: 4 at a time
    let inFlight = 0;
    let most = 0;
    const run = async (address: string) => {
      const admission = await limiter.admit(address);
      if (admission.blockedFor > 0) return "blocked";
      inFlight += 1;
      most = Math.max(most, inFlight);
      await tick();
      inFlight -= 1;
      admission.release();
      return "ok";
    };
    const outcomes = await Promise.all(Array.from({ length: 100 }, () => run("10.0.0.1")));
    expect(outcomes.every((o) => o === "ok")).to.equal(true);
    expect(most).to.equal(4);
    expect(await run("10.0.0.2")).to.equal("ok");
    expect(await limiter.blockedFor("10.0.0.1")).to.equal(0);
  });

  it("waits for its turn up to maxWaiting checks of one address; one more is answered blocked", async () => {
    const limiter = createFailureLimiter({
      points: 1,
      windowSeconds: 60,
      blockSeconds: 60,
      maxWaiting: 3,
    });
    const first = await limiter.admit("10.0.0.1");
    expect(first.blockedFor).to.equal(0);
    // The one slot is taken: three wait (at the limit), the fourth is refused at once.
    const waiting = [1, 2, 3].map(() => limiter.admit("10.0.0.1"));
    const refused = await limiter.admit("10.0.0.1");
    expect(refused.blockedFor).to.equal(1);
    // The check in flight ends well (no failure): the waiting ones are admitted, in turn.
    first.release();
    for (const admission of waiting) {
      const admitted = await admission;
      expect(admitted.blockedFor).to.equal(0);
      admitted.release();
    }
  });
});
