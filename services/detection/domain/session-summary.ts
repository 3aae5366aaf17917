/**
 * The summary a session ends with: the engine's final `session.summary` event with the records
 * stored during the session put back in its lists, kept within a size the session document can
 * hold. Its JSON text is both the stream's last event and `terminal_outcome` (the contract: "the
 * final session.summary event as JSON text").
 */
import {
  type DetectionEvent,
  mergeSummary,
  type SummaryRecords,
} from "@movement-detection/movespec";
import { leadingItemsWithin } from "@movement-detection/shared/text";

export type SummaryEvent = Extract<DetectionEvent, { type: "session.summary" }>;

/** A summary event whose lists were cut to fit: how many records were left out of each. */
export type BoundedSummary = SummaryEvent & { reps_omitted?: number; holds_omitted?: number };

export interface FinalSummary {
  readonly summary: BoundedSummary;
  /** The event as JSON text (at most the byte limit). */
  readonly text: string;
}

/** The `session.summary` event among the events `finish()` returned (always the last). */
export function summaryEventOf(events: readonly DetectionEvent[]): SummaryEvent {
  const event = events.at(-1);
  if (event?.type !== "session.summary") throw new Error("finish() ended without session.summary");
  return event;
}

/**
 * The whole session's summary event from the engine's final one and the stored records. If its
 * JSON would pass `maxBytes`, the lists keep their first records (repetitions, then holds) up to
 * that size and say how many were left out; the counts, score and other totals always cover
 * everything.
 */
export function finalSummary(
  summary: SummaryEvent,
  stored: readonly SummaryRecords[],
  maxBytes: number,
): FinalSummary {
  const whole = mergeSummary(summary, stored);
  const text = JSON.stringify(whole);
  if (Buffer.byteLength(text) <= maxBytes) return { summary: whole, text };
  // Room for the lists once everything else (the omitted counts at their largest) is written.
  const frame = JSON.stringify({
    ...whole,
    reps: [],
    holds: [],
    reps_omitted: whole.reps.length,
    holds_omitted: whole.holds.length,
  });
  const room = maxBytes - Buffer.byteLength(frame);
  const reps = leadingItemsWithin(whole.reps, room);
  const holds =
    reps.count === whole.reps.length ? leadingItemsWithin(whole.holds, room - reps.bytes).count : 0;
  const bounded: BoundedSummary = {
    ...whole,
    reps: whole.reps.slice(0, reps.count),
    holds: whole.holds.slice(0, holds),
    reps_omitted: whole.reps.length - reps.count,
    holds_omitted: whole.holds.length - holds,
  };
  return { summary: bounded, text: JSON.stringify(bounded) };
}
