/** detection-event.v1: the events the engine emits (documented in docs/movespec.md). */

export type EventSide = "left" | "right" | "both";
export type Values = Record<string, number>;

interface Envelope {
  /** Numbered from 1 per session, with no gaps. */
  event_seq: number;
  /** seq and t of the frame that caused the event. */
  seq: number;
  t: number;
  side?: EventSide;
}

export interface SignalStats {
  min: number;
  max: number;
  range: number;
}

export interface RepMetrics {
  /** Seconds from leaving the start phase to entering the last phase of the cycle. */
  duration: number;
  /** Seconds for each step of the cycle, in order (start -> 2nd phase, 2nd -> 3rd, ...). */
  tempo: number[];
  /** Seconds spent inside each phase during the repetition (the rest is transition). */
  phase_time: Record<string, number>;
  /** Extremes and range of motion of each metric signal. */
  signals: Record<string, SignalStats>;
}

export interface RepRecord {
  count: number;
  side?: EventSide;
  start_t: number;
  end_t: number;
  score: number;
  violations: string[];
  metrics: RepMetrics;
}

export interface HoldRecord {
  side?: EventSide;
  phase: string;
  start_t: number;
  /** Seconds held (brief breaks within the grace period included). */
  elapsed: number;
  completed: boolean;
}

export type DetectionEvent =
  | (Envelope & { type: "tracking.lost"; since_t: number; missing: string[] })
  | (Envelope & { type: "tracking.regained"; lost_for: number })
  | (Envelope & {
      type: "phase.entered";
      phase: string;
      previous?: string;
      since_t: number;
      values: Values;
    })
  | (Envelope & {
      type: "rep.completed";
      count: number;
      total: number;
      start_t: number;
      end_t: number;
      score: number;
      violations: string[];
      metrics: RepMetrics;
      values: Values;
    })
  | (Envelope & {
      type: "rep.partial";
      reason: "turned_back" | "timeout" | "too_fast" | "too_slow" | "voided" | "tracking_lost";
      start_t: number;
      duration: number;
      /** The bound broken, seconds: within.min (too_fast) or within.max (too_slow, timeout). */
      limit?: number;
      reached: string[];
      progress?: number;
      violations?: string[];
      values: Values;
    })
  | (Envelope & { type: "hold.started"; phase: string; since_t: number; target: number })
  | (Envelope & { type: "hold.progress"; phase: string; elapsed: number; remaining: number })
  | (Envelope & { type: "hold.completed"; phase: string; elapsed: number })
  | (Envelope & {
      type: "hold.broken";
      phase: string;
      elapsed: number;
      reason: "left_phase" | "tracking_lost";
    })
  | (Envelope & {
      type: "form.violation";
      rule: string;
      severity: "info" | "warning" | "error";
      message: string;
      rep?: number;
      values: Values;
    })
  | (Envelope & { type: "session.summary" } & SessionSummary);

export interface SessionSummary {
  /** Counted repetitions, all sides together. */
  count: number;
  /** Per side, when sides are counted separately (`sides: both`). */
  counts?: { left: number; right: number };
  partials: number;
  /** Mean score of the counted repetitions (0 when none). */
  score: number;
  reps: RepRecord[];
  holds: HoldRecord[];
  /** Longest hold, seconds (0 when the MoveSpec has no hold). */
  longest_hold: number;
  frames: number;
  /** Seconds from the first to the last accepted frame. */
  duration: number;
}

export type EventType = DetectionEvent["type"];

/** Rounds to milliseconds / 3 decimals so events are short and stable. */
export function r3(x: number): number {
  const v = Math.round(x * 1000) / 1000;
  return v === 0 ? 0 : v;
}
