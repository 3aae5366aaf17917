/**
 * The last events sent to the client, as sent. A client that drops abruptly may never have read
 * them (they were in the network's buffers); after it reconnects they cannot be produced again,
 * because the checkpoint the engine resumes from is past the frames that produced them. So each
 * checkpoint keeps them, and a reconnecting client gets those after its `last_event_seq` again.
 * Bounded by count and bytes, so that a checkpoint stays small however long the session
 * (docs/realtime.md, "Resume").
 */

export const RECENT_EVENTS_MAX = 16;
export const RECENT_EVENTS_MAX_BYTES = 8 * 1024;

export interface SentEvent {
  readonly event_seq: number;
  /** The `event` message exactly as it was sent. */
  readonly message: string;
}

export class RecentEvents {
  private readonly kept: SentEvent[] = [];
  private bytes = 0;

  constructor(initial: readonly SentEvent[] = []) {
    for (const event of initial) this.add(event.event_seq, event.message);
  }

  add(eventSeq: number, message: string): void {
    this.kept.push({ event_seq: eventSeq, message });
    this.bytes += message.length;
    while (this.kept.length > RECENT_EVENTS_MAX || this.bytes > RECENT_EVENTS_MAX_BYTES) {
      this.bytes -= (this.kept.shift() as SentEvent).message.length;
    }
  }

  /** What a checkpoint stores. */
  list(): SentEvent[] {
    return [...this.kept];
  }
}

export interface Resend {
  /** Kept events the client has not seen, oldest first. */
  readonly events: readonly SentEvent[];
  /** Event numbers the client has not seen and that are no longer kept, if any. */
  readonly lost?: { readonly from: number; readonly to: number };
}

/**
 * What to send again to a client that says it saw events up to `lastEventSeq` (its hello's
 * `last_event_seq`; undefined when it did not say, and then it is not told of a gap).
 * `lastSentEventSeq`: the last event the engine had emitted at the checkpoint it resumes from.
 */
export function eventsToResend(
  kept: readonly SentEvent[],
  lastEventSeq: number | undefined,
  lastSentEventSeq: number,
): Resend {
  const seen = lastEventSeq ?? 0;
  const events = kept.filter((event) => event.event_seq > seen);
  const firstKept = events[0]?.event_seq ?? lastSentEventSeq + 1;
  if (lastEventSeq === undefined || firstKept <= seen + 1) return { events };
  return { events, lost: { from: seen + 1, to: firstKept - 1 } };
}
