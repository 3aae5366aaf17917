/**
 * A gateway that stops (SIGTERM: a rolling update, a scale-down) closes the streams it proxies
 * with 1001, as a draining replica does, so that clients reconnect through another gateway and
 * resume; it does not leave them to be cut at its shutdown deadline (1006).
 */
import { expect } from "chai";
import { attach } from "../detection/support/raw-stream.js";
import {
  createSession,
  createTenant,
  exampleYaml,
  publishMoveSpec,
} from "../detection/support/session-api.js";
import { readFrames } from "../movespec/support/recordings.js";
import { startTestSystem, type TestSystem } from "../support/system.js";

describe("a draining gateway (whole system)", function () {
  this.timeout(60_000);
  let system: TestSystem;

  before(async () => {
    // A deadline far beyond the test's expectations: a stream cut by it would be late.
    system = await startTestSystem({ serviceEnv: { gateway: { SHUTDOWN_TIMEOUT_MS: "30000" } } });
  });
  after(async () => system?.stop());

  it("closes its open streams with 1001 and a reason at once, then exits 0", async () => {
    const tenant = await createTenant(system);
    const { movespecId } = await publishMoveSpec(tenant, exampleYaml("squat"));
    const frames = readFrames("m01_s01");
    const streams = await Promise.all(
      [0, 1, 2].map(async () => {
        const session = await createSession(tenant, { movespec_id: movespecId, mode: "live" });
        const stream = await attach(session.stream_url, session.runtime_token);
        stream.send({ type: "frames", frames: frames.slice(0, 10) });
        return stream;
      }),
    );
    const gateway = system.processes.find((process) => process.name === "gateway");
    expect(gateway, "the gateway process").to.not.equal(undefined);
    const started = performance.now();
    const exited = gateway?.stop(40_000);
    const closes = await Promise.all(streams.map((stream) => stream.closed(10_000)));
    const closedWithin = performance.now() - started;
    for (const closed of closes) {
      expect(closed).to.deep.equal({ code: 1001, reason: "gateway shutting down: reconnect" });
    }
    expect(closedWithin).to.be.below(5000);
    expect(await exited).to.equal(0);
  });
});
