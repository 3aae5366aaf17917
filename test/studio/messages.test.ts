/**
 * What the Studio says when the connection fails (gateway/studio/app/messages.ts): the same for every
 * request that got no answer, and for a run's stream that could not reconnect, what happened and
 * what to do. (The browser test sees the first in the page; a stream giving up takes its
 * reconnects' half a minute, so the second is checked here.)
 */

import { MdsNetworkError, StreamClientError } from "@movement-detection/sdk";
import { expect } from "chai";
import { connectionText, STREAM_LOST, UNREACHABLE } from "../../gateway/studio/app/messages.js";

describe("the Studio's messages for a lost connection", () => {
  it("says the service cannot be reached when a request got no answer", () => {
    expect(UNREACHABLE).to.equal("cannot reach the service. Check your connection and try again.");
    expect(connectionText(new MdsNetworkError("GET /api/movespecs: Failed to fetch"))).to.equal(
      UNREACHABLE,
    );
    // A plain fetch (the bundled recordings), as Chromium, Firefox and Safari word it.
    for (const message of [
      "Failed to fetch",
      "NetworkError when attempting to fetch resource.",
      "Load failed",
    ])
      expect(connectionText(new TypeError(message)), message).to.equal(UNREACHABLE);
    expect(connectionText(new TypeError("x is not a function"))).to.equal(undefined);
  });

  it("says a run's stream was lost when it could not reconnect, and names a refusal", () => {
    expect(STREAM_LOST).to.match(/^the connection to the service was lost .* try again\.$/);
    expect(connectionText(new StreamClientError("could not reconnect", 1006))).to.equal(
      STREAM_LOST,
    );
    expect(connectionText(new StreamClientError("could not reconnect", 1005))).to.equal(
      STREAM_LOST,
    );
    expect(
      connectionText(new StreamClientError("stream closed with 4409: SESSION_CLOSED", 4409)),
    ).to.equal("the stream closed (4409): stream closed with 4409: SESSION_CLOSED");
  });
});
