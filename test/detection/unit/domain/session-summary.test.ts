import type { HoldRecord, RepRecord } from "@movement-detection/movespec";
import { expect } from "chai";
import {
  finalSummary,
  type SummaryEvent,
} from "../../../../services/detection/domain/session-summary.js";
import {
  eventMessage,
  summaryEventMessage,
} from "../../../../services/detection/stream/stream-messages.js";

const rep = (count: number): RepRecord => ({
  count,
  start_t: count * 2,
  end_t: count * 2 + 1.5,
  score: 100 - (count % 3),
  violations: [],
  metrics: { duration: 1.5, tempo: [0.7, 0.8], phase_time: { up: 0.2 }, signals: {} },
});
const hold = (i: number): HoldRecord => ({
  phase: "plank",
  start_t: i * 10,
  elapsed: 5,
  completed: true,
});

/** A summary event as the engine ends it: totals for all, lists of the records it still held. */
function engineSummary(held: RepRecord[], count: number, holds: HoldRecord[] = []): SummaryEvent {
  return {
    type: "session.summary",
    event_seq: 7,
    seq: 999,
    t: 33.3,
    count,
    partials: 1,
    score: 99,
    reps: held,
    holds,
    longest_hold: 5,
    frames: 1000,
    duration: 33.3,
  };
}

describe("detection finalSummary", () => {
  const all = Array.from({ length: 30 }, (_, i) => rep(i + 1));
  const stored = [
    { reps: all.slice(0, 10), holds: [hold(0)] },
    { reps: all.slice(10, 25), holds: [hold(1), hold(2)] },
  ];
  const summary = engineSummary(all.slice(25), 30, [hold(3)]);
  const whole = { ...summary, reps: all, holds: [0, 1, 2, 3].map(hold) };

  it("lists every stored record with the engine's, in order, and the totals as they are", () => {
    const final = finalSummary(summary, stored, 1024 * 1024);
    expect(final.summary).to.deep.equal(whole);
    expect(final.text).to.equal(JSON.stringify(whole));
  });

  it("keeps everything at exactly the byte limit, and cuts the lists one byte under it", () => {
    const repsOnly = stored.map((chunk) => ({ reps: chunk.reps, holds: [] }));
    const wholeReps = { ...whole, holds: [] };
    const exact = Buffer.byteLength(JSON.stringify(wholeReps));
    expect(finalSummary({ ...summary, holds: [] }, repsOnly, exact).summary).to.deep.equal(
      wholeReps,
    );

    const cut = finalSummary({ ...summary, holds: [] }, repsOnly, exact - 1);
    expect(Buffer.byteLength(cut.text)).to.be.at.most(exact - 1);
    expect(cut.summary.reps).to.deep.equal(all.slice(0, 29)); // the last repetition left out
    expect(cut.summary).to.include({ reps_omitted: 1, holds_omitted: 0, count: 30, score: 99 });
    expect(JSON.parse(cut.text)).to.deep.equal(cut.summary);
  });

  it("gives repetitions the room before holds", () => {
    const exact = Buffer.byteLength(JSON.stringify(whole));
    const cut = finalSummary(summary, stored, exact - 1);
    expect(cut.summary.reps).to.deep.equal(all);
    expect(cut.summary.holds.length).to.be.below(4);
    expect(cut.summary.holds).to.deep.equal(whole.holds.slice(0, cut.summary.holds.length));
    expect(cut.summary.holds_omitted).to.equal(4 - cut.summary.holds.length);
    expect(Buffer.byteLength(cut.text)).to.be.at.most(exact - 1);
  });

  it("cuts to the first records that fit a small limit, and says how many are left out", () => {
    const cut = finalSummary(summary, stored, 2048);
    expect(Buffer.byteLength(cut.text)).to.be.at.most(2048);
    const listed = cut.summary.reps.length;
    expect(listed).to.be.within(1, 29);
    expect(cut.summary.reps).to.deep.equal(all.slice(0, listed));
    expect(cut.summary.reps_omitted).to.equal(30 - listed);
    // One more repetition would not have fitted.
    const oneMore = { ...cut.summary, reps: all.slice(0, listed + 1) };
    expect(Buffer.byteLength(JSON.stringify(oneMore))).to.be.above(2048);
  });

  it("is the whole session.summary event, and its message the same text as eventMessage's", () => {
    const final = finalSummary(summary, stored, 1024 * 1024);
    expect(Object.keys(JSON.parse(final.text)).slice(0, 5)).to.deep.equal([
      "type",
      "event_seq",
      "seq",
      "t",
      "count",
    ]);
    expect(summaryEventMessage(final.text)).to.equal(eventMessage(final.summary));
  });
});
