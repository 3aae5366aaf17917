/**
 * Which session statuses are over (services/detection/domain/session-document.ts): the one
 * `isTerminal` the attacher, the lease and the operations all ask.
 */
import { expect } from "chai";
import {
  ACTIVE_STATUSES,
  isTerminal,
  type SessionStatus,
  TERMINAL_STATUSES,
} from "../../../../services/detection/domain/session-document.js";

describe("session statuses", () => {
  it("are over once completed, failed or cancelled, and only then", () => {
    const over: Record<SessionStatus, boolean> = {
      created: false,
      streaming: false,
      finalizing: false,
      completed: true,
      failed: true,
      cancelled: true,
    };
    for (const [status, terminal] of Object.entries(over))
      expect(isTerminal(status as SessionStatus), status).to.equal(terminal);
    expect([...ACTIVE_STATUSES, ...TERMINAL_STATUSES].sort()).to.deep.equal(
      Object.keys(over).sort(),
    );
  });
});
