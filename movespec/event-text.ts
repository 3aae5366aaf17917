/**
 * Detection events in words, written once for the CLI's text output and the Studio's lists (no
 * DOM, no Node: both import it). `eventText` is what happened; `describeEvent` puts the event's
 * time and sequence number in front, as the CLI prints it.
 */
import type { DetectionEvent } from "./engine/events.js";

type Partial = Extract<DetectionEvent, { type: "rep.partial" }>;

/** Why a repetition did not count, with the value measured and the limit it broke. */
export function partialReason(e: Partial): string {
  switch (e.reason) {
    case "too_fast":
      return `too_fast: ${e.duration} s < within.min ${e.limit} s`;
    case "too_slow":
      return `too_slow: ${e.duration} s > within.max ${e.limit} s`;
    case "timeout":
      return `timeout: still in progress after within.max ${e.limit} s`;
    case "turned_back":
      return `turned_back: back to the start${e.progress !== undefined ? ` after ${Math.round(e.progress * 100)}% of the way to the target` : ""}${e.reached.length ? ` (reached ${e.reached.join(", ")})` : ""}`;
    case "voided":
      return `voided by ${e.violations?.join(", ") ?? "a form rule"}`;
    case "tracking_lost":
      return "tracking_lost: the landmarks were out of sight for tracking.reset_after";
  }
}

function values(v: Record<string, number>): string {
  return Object.entries(v)
    .map(([k, x]) => `${k}=${x}`)
    .join(" ");
}

/** One line per event with its time and sequence number: the CLI's text output. */
export function describeEvent(e: DetectionEvent): string {
  return `t=${e.t.toFixed(2)}s seq=${e.seq} ${eventText(e)}`;
}

/** What an event says, with its side and its numbers, without its time. */
export function eventText(e: DetectionEvent): string {
  const side = e.side ? ` [${e.side}]` : "";
  switch (e.type) {
    case "rep.completed":
      return `rep ${e.count}${side} (${e.metrics.duration}s, score ${e.score}${e.violations.length ? `, ${e.violations.join(", ")}` : ""})`;
    case "rep.partial":
      return `partial rep${side}: ${partialReason(e)}`;
    case "phase.entered":
      return `phase ${e.previous ?? "(none)"} -> ${e.phase}${side} ${values(e.values)}`;
    case "form.violation":
      return `${e.severity} ${e.rule}${side}: ${e.message}`;
    case "tracking.lost":
      return `tracking lost${side}: ${e.missing.join(", ")} not visible since t=${e.since_t.toFixed(2)}s`;
    case "tracking.regained":
      return `tracking regained${side} after ${e.lost_for}s`;
    case "hold.started":
      return `hold started${side} (target ${e.target}s)`;
    case "hold.progress":
      return `hold ${e.elapsed}s${side} (${e.remaining}s to go)`;
    case "hold.completed":
      return `hold completed${side} (${e.elapsed}s)`;
    case "hold.broken":
      return `hold broken${side} after ${e.elapsed}s (${e.reason})`;
    case "session.summary":
      return `summary: ${e.count} counted${e.counts ? ` (left ${e.counts.left}, right ${e.counts.right})` : ""}, ${e.partials} partial, score ${e.score}${e.longest_hold ? `, longest hold ${e.longest_hold}s` : ""}`;
  }
}
