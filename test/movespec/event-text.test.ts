/**
 * Detection events in words (movespec/event-text.ts), written once for the CLI's output and the
 * Studio's lists of the latest events and of a run's warnings.
 */

import type { DetectionEvent } from "@movement-detection/movespec";
import { describeEvent, eventText } from "@movement-detection/movespec";
import { expect } from "chai";

const partial: DetectionEvent = {
  type: "rep.partial",
  event_seq: 5,
  t: 12.345,
  seq: 41,
  side: "left",
  reason: "too_fast",
  start_t: 11.2,
  duration: 1.15,
  limit: 2,
  reached: ["down"],
  values: { knees: 95 },
};

const violation: DetectionEvent = {
  type: "form.violation",
  event_seq: 1,
  t: 3,
  seq: 7,
  rule: "knees_in",
  severity: "warning",
  message: "keep the knees over the toes",
  rep: 2,
  values: {},
};

describe("detection events in words", () => {
  it("says what happened, with the side and the limit broken", () => {
    expect(eventText(partial)).to.equal("partial rep [left]: too_fast: 1.15 s < within.min 2 s");
    expect(eventText(violation)).to.equal("warning knees_in: keep the knees over the toes");
  });

  it("puts the time and the sequence number first for the CLI", () => {
    expect(describeEvent(partial)).to.equal(
      "t=12.35s seq=41 partial rep [left]: too_fast: 1.15 s < within.min 2 s",
    );
    expect(describeEvent(violation)).to.equal(
      "t=3.00s seq=7 warning knees_in: keep the knees over the toes",
    );
  });
});
