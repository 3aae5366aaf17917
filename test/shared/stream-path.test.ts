/**
 * The stream's public path (services/shared/realtime/stream-path.ts): the one the gateway answers
 * in `stream_url`, matches on the upgrade and the replica matches again.
 */

import { streamPath, streamPathSession } from "@movement-detection/shared/realtime";
import { expect } from "chai";
import { ignoresAuthorization } from "../../gateway/auth/scopes.js";

const ID = "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";

/** Paths one character off the stream's (none is a stream path). */
const NEAR_MISSES = [
  "",
  "/api/detection/sessions//stream",
  `/api/detection/sessions/${ID}/stream/`,
  `/api/detection/sessions/${ID}/streams`,
  `/api/detection/sessions/${ID}/stream#x`,
  `/api/detection/sessions/${ID}/x/stream`,
  `/api/detection/sessions/${ID}`,
  `//api/detection/sessions/${ID}/stream`,
  `/api/detection/session/${ID}/stream`,
  `http://host/api/detection/sessions/${ID}/stream`,
];

describe("the stream path", () => {
  it("reads back the session of the path it builds, with or without a query", () => {
    expect(streamPath(ID)).to.equal(`/api/detection/sessions/${ID}/stream`);
    expect(streamPathSession(streamPath(ID))).to.equal(ID);
    expect(streamPathSession(`${streamPath(ID)}?`)).to.equal(ID);
    expect(streamPathSession(`${streamPath(ID)}?resume=1`)).to.equal(ID);
    // Any one segment: whether it names a session is the stream's answer (4404), not a 404.
    expect(streamPathSession("/api/detection/sessions/x/stream")).to.equal("x");
  });

  it("matches nothing one character off the path", () => {
    for (const target of [undefined, ...NEAR_MISSES])
      expect(streamPathSession(target), String(target)).to.equal(undefined);
  });

  it("is the one path the gateway's access-token check leaves to the stream's runtime token", () => {
    // The upgrade and the authorization skip read the same pattern: a path the upgrade refuses
    // must not pass the gateway without an access token.
    for (const method of ["GET", "POST", "DELETE"])
      expect(ignoresAuthorization(method, streamPath(ID)), method).to.equal(true);
    for (const path of NEAR_MISSES) expect(ignoresAuthorization("GET", path), path).to.equal(false);
  });
});
