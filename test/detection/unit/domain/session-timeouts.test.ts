import { expect } from "chai";
import { dueOutcome } from "../../../../services/detection/domain/session-timeouts.js";

describe("detection dueOutcome", () => {
  const limits = { idleTimeoutMs: 1000 };
  const base = {
    status: "created" as const,
    expires_at: new Date(100_000),
    attach_deadline: new Date(10_000),
    last_activity_at: new Date(0),
  };

  it("completes a finalizing session", () => {
    expect(dueOutcome({ ...base, status: "finalizing" }, new Date(1), limits)).to.deep.equal({
      status: "completed",
    });
  });

  it("cancels a never-attached session after the attach deadline, not the idle timeout", () => {
    expect(dueOutcome(base, new Date(5000), limits)).to.equal(undefined);
    expect(dueOutcome(base, new Date(10_000), limits)).to.include({
      status: "cancelled",
      errorCode: "ATTACH_TIMEOUT",
    });
  });

  it("cancels an attached session idle past the idle timeout", () => {
    const attached = {
      ...base,
      status: "streaming" as const,
      attached_at: new Date(0),
      last_activity_at: new Date(2000),
    };
    expect(dueOutcome(attached, new Date(2999), limits)).to.equal(undefined);
    expect(dueOutcome(attached, new Date(3000), limits)).to.include({
      status: "cancelled",
      errorCode: "IDLE_TIMEOUT",
    });
  });

  it("fails any active session past its maximum duration; leaves terminal ones alone", () => {
    const attached = {
      ...base,
      status: "streaming" as const,
      attached_at: new Date(0),
      last_activity_at: new Date(99_999),
    };
    expect(dueOutcome(attached, new Date(100_000), limits)).to.include({
      status: "failed",
      errorCode: "SESSION_MAX_DURATION_EXCEEDED",
    });
    expect(dueOutcome({ ...base, status: "completed" }, new Date(1e9), limits)).to.equal(undefined);
  });
});
