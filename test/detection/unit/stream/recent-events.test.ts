import { expect } from "chai";
import {
  eventsToResend,
  RECENT_EVENTS_MAX,
  RECENT_EVENTS_MAX_BYTES,
  RecentEvents,
  type SentEvent,
} from "../../../../services/detection/stream/recent-events.js";

const sent = (seq: number, bytes = 40): SentEvent => ({
  event_seq: seq,
  message: `{"type":"event","event":{"event_seq":${seq}}}`.padEnd(bytes, " "),
});

describe("detection RecentEvents (events kept for a client that reconnects)", () => {
  it("keeps the last RECENT_EVENTS_MAX events, oldest first", () => {
    const recent = new RecentEvents();
    for (let seq = 1; seq <= RECENT_EVENTS_MAX; seq++) recent.add(seq, sent(seq).message);
    expect(recent.list().map((e) => e.event_seq)).to.deep.equal(
      Array.from({ length: RECENT_EVENTS_MAX }, (_, i) => i + 1),
    );
    recent.add(RECENT_EVENTS_MAX + 1, sent(RECENT_EVENTS_MAX + 1).message);
    const kept = recent.list().map((e) => e.event_seq);
    expect(kept).to.have.length(RECENT_EVENTS_MAX);
    expect(kept[0]).to.equal(2);
  });

  it("keeps at most RECENT_EVENTS_MAX_BYTES of messages: a bigger one alone is not kept", () => {
    const half = RECENT_EVENTS_MAX_BYTES / 2;
    const recent = new RecentEvents([sent(1, half), sent(2, half)]);
    expect(recent.list().map((e) => e.event_seq)).to.deep.equal([1, 2]); // exactly at the limit
    recent.add(3, sent(3, 1).message);
    expect(recent.list().map((e) => e.event_seq)).to.deep.equal([2, 3]);
    recent.add(4, sent(4, RECENT_EVENTS_MAX_BYTES + 1).message);
    expect(recent.list()).to.deep.equal([]);
  });

  it("restores what a checkpoint kept, and lists a copy", () => {
    const recent = new RecentEvents([sent(7), sent(8)]);
    const listed = recent.list();
    listed.pop();
    expect(recent.list().map((e) => e.event_seq)).to.deep.equal([7, 8]);
  });
});

describe("detection eventsToResend", () => {
  const kept = [sent(5), sent(6), sent(7)];

  it("sends the kept events after the client's last_event_seq", () => {
    expect(eventsToResend(kept, 5, 7)).to.deep.equal({ events: [sent(6), sent(7)] });
    expect(eventsToResend(kept, 4, 7)).to.deep.equal({ events: kept });
  });

  it("sends nothing to a client that saw everything (or says it saw more)", () => {
    expect(eventsToResend(kept, 7, 7)).to.deep.equal({ events: [] });
    expect(eventsToResend(kept, 99, 7)).to.deep.equal({ events: [] });
    expect(eventsToResend([], 0, 0)).to.deep.equal({ events: [] });
  });

  it("names the events a client has not seen that are no longer kept", () => {
    expect(eventsToResend(kept, 2, 7)).to.deep.equal({
      events: kept,
      lost: { from: 3, to: 4 },
    });
    expect(eventsToResend(kept, 0, 7)).to.deep.equal({ events: kept, lost: { from: 1, to: 4 } });
    // Nothing kept at all (a checkpoint from before events were kept): all of them are gone.
    expect(eventsToResend([], 3, 7)).to.deep.equal({ events: [], lost: { from: 4, to: 7 } });
  });

  it("without a last_event_seq, sends every kept event and warns of nothing", () => {
    expect(eventsToResend(kept, undefined, 7)).to.deep.equal({ events: kept });
  });
});
