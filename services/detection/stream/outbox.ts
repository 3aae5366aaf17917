import type { DetectionEvent, PushManyResult } from "@movement-detection/movespec";
import type { SessionMode } from "../domain/session-document.js";
import { StreamWarning } from "../reasons.js";
import { eventsToResend, RecentEvents, type SentEvent } from "./recent-events.js";
import {
  ackMessage,
  type EndFields,
  endMessage,
  errorMessage,
  eventMessage,
  summaryEventMessage,
  warningMessage,
} from "./stream-messages.js";
import type { StreamMetrics } from "./stream-metrics.js";
import type { StreamSink } from "./stream-sink.js";

/** Most warnings sent for one message; the rest are summed up in one more. */
const MAX_WARNINGS_PER_MESSAGE = 16;

export interface OutboxInit {
  readonly sink: StreamSink;
  readonly metrics: StreamMetrics;
  readonly mode: SessionMode;
  /** Events up to this event_seq reached the client before (hello's last_event_seq). */
  readonly lastEventSeq: number | undefined;
  /** The `event_seq` of the engine's last event, as restored. */
  readonly engineLastEventSeq: number;
  /** The events sent last before the checkpoint the engine was restored from. */
  readonly recentEvents: readonly SentEvent[];
}

/**
 * What an attached session tells its client, and the counts of it: the engine's events (each
 * kept for a client that reconnects without having read it), rejected frames as warnings, acks,
 * the end, the `error` before a close.
 */
export class Outbox {
  private readonly sink: StreamSink;
  private readonly metrics: StreamMetrics;
  private readonly mode: SessionMode;
  private readonly suppressEventsUpTo: number;
  private readonly reportedLastEventSeq: number | undefined;
  private readonly recentEvents: RecentEvents;

  constructor(init: OutboxInit) {
    this.sink = init.sink;
    this.metrics = init.metrics;
    this.mode = init.mode;
    // A client cannot have seen events the session has not produced yet: a last_event_seq past
    // the engine's last event (a stale or foreign value) must not silence the events to come.
    const seen =
      init.lastEventSeq === undefined
        ? undefined
        : Math.min(init.lastEventSeq, init.engineLastEventSeq);
    this.suppressEventsUpTo = seen ?? 0;
    this.reportedLastEventSeq = seen;
    this.recentEvents = new RecentEvents(init.recentEvents);
  }

  /**
   * Sends again the events the client has not seen that the checkpoint kept (a client that
   * dropped abruptly may not have read them), or says which ones are gone.
   */
  resendUnseenEvents(engineLastEventSeq: number): void {
    const { events, lost } = eventsToResend(
      this.recentEvents.list(),
      this.reportedLastEventSeq,
      engineLastEventSeq,
    );
    if (lost) {
      this.sink.send(
        warningMessage(
          StreamWarning.eventsNotResent,
          `events ${lost.from} to ${lost.to} were sent before the disconnect and are no longer kept (the session's summary still counts them)`,
        ),
      );
    }
    for (const event of events) this.sink.send(event.message);
  }

  /** The last events sent, as a checkpoint keeps them. */
  recent(): SentEvent[] {
    return this.recentEvents.list();
  }

  /**
   * Sends the events the client has not seen. `received`: when the frames that produced them
   * reached the session (performance.now()); undefined for the events of the session's end,
   * which no frame produced. `summaryText` is the final summary, if known.
   */
  events(
    events: readonly DetectionEvent[],
    received: number | undefined,
    summaryText?: string,
  ): void {
    if (events.length === 0) return;
    const latency = this.metrics.frameToEvent.labels({ mode: this.mode });
    for (const event of events) {
      const message =
        summaryText !== undefined && event.type === "session.summary"
          ? summaryEventMessage(summaryText)
          : eventMessage(event);
      this.recentEvents.add(event.event_seq, message);
      if (event.event_seq <= this.suppressEventsUpTo) continue;
      this.sink.send(message);
      if (received !== undefined) latency.observe((performance.now() - received) / 1000);
    }
    this.metrics.eventsSent.inc(events.length);
  }

  /** The one frame of a `frame` message was rejected (a resend is not: it is ignored). */
  rejectedFrame(reason: string, message: string, seq: number | undefined): void {
    this.metrics.framesRejected.inc();
    this.sink.send(warningMessage(reason, message, seq));
  }

  /** The frames of a batch that were rejected, resends left out. */
  rejections(rejected: PushManyResult["rejected"]): void {
    let sent = 0;
    let more = 0;
    for (const rejection of rejected) {
      if (rejection.reason === "SEQ_NOT_INCREASING") continue;
      this.metrics.framesRejected.inc();
      if (sent < MAX_WARNINGS_PER_MESSAGE) {
        this.sink.send(
          warningMessage(
            rejection.reason,
            `frames[${rejection.index}]: ${rejection.message}`,
            rejection.seq,
          ),
        );
        sent += 1;
      } else more += 1;
    }
    if (more > 0) {
      this.sink.send(
        warningMessage(
          StreamWarning.moreRejected,
          `${more} more frames of this message were rejected`,
        ),
      );
    }
  }

  warning(code: string, message: string): void {
    this.sink.send(warningMessage(code, message));
  }

  /** Frames up to `lastSeq` are durable. */
  ack(acceptedFramesTotal: number, lastSeq: number): void {
    this.sink.send(ackMessage(acceptedFramesTotal, lastSeq));
  }

  error(code: string, message: string): void {
    this.sink.send(errorMessage(code, message));
  }

  end(fields: EndFields): void {
    this.sink.send(endMessage(fields));
  }

  close(code: number, reason: string): void {
    this.sink.close(code, reason);
  }

  /** An `error`, then the close, its reason the error's code. */
  closeWithError(code: string, message: string, closeCode: number): void {
    this.error(code, message);
    this.close(closeCode, code.toLowerCase());
  }
}
