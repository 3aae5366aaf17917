/**
 * detection-event.v1, defined once: the JSON Schema (TypeBox) of every event the engine emits.
 * The engine's TypeScript types are derived from it (events.ts), the realtime stream's schema and
 * its AsyncAPI document embed it (services/shared/api/stream.ts), and the SDK's types are
 * generated from that document: a field or an event type added here appears in all of them.
 * Documented for authors in docs/movespec.md ("Events").
 *
 * Objects allow properties beyond those listed (`additionalProperties: true`): clients must
 * ignore fields they do not know, so that new ones can be added under the same version. The
 * test suite checks every message it receives against a strict copy (test/support/contract.ts).
 */
import Type from "typebox";
import { StringEnum, StringMap } from "../json-schema.js";

const open = { additionalProperties: true } as const;

export const EVENT_SIDES = ["left", "right", "both"] as const;
const Side = StringEnum(EVENT_SIDES, {
  description: "the side the event is about, when the MoveSpec has sides",
});

export const REP_PARTIAL_REASONS = [
  "turned_back",
  "timeout",
  "too_fast",
  "too_slow",
  "voided",
  "tracking_lost",
] as const;
export const HOLD_BROKEN_REASONS = ["left_phase", "tracking_lost"] as const;
export const FORM_SEVERITIES = ["info", "warning", "error"] as const;

const Names = Type.Array(Type.String());
const Seconds = (description?: string) =>
  Type.Number(description ? { description: `seconds: ${description}` } : {});

/** Signal values, by name (`left.x` / `right.x` when both sides are reported), rounded to 3 decimals. */
export const Values = StringMap(
  Type.Number(),
  "the smoothed values of the signals that caused the event, rounded to 3 decimals",
);

export const SignalStats = Type.Object(
  { min: Type.Number(), max: Type.Number(), range: Type.Number({ description: "max - min" }) },
  { title: "SignalStats", ...open },
);

export const RepMetrics = Type.Object(
  {
    duration: Seconds("from leaving the start phase to entering the cycle's last phase"),
    tempo: Type.Array(Type.Number(), {
      description: "seconds for each step of the cycle, in order",
    }),
    phase_time: StringMap(Type.Number(), "seconds inside each phase of the cycle"),
    signals: StringMap(SignalStats, "extremes and range of motion of each metric signal"),
  },
  { title: "RepMetrics", ...open },
);

export const RepRecord = Type.Object(
  {
    count: Type.Integer({ minimum: 1, description: "this side's count" }),
    side: Type.Optional(Side),
    start_t: Type.Number(),
    end_t: Type.Number(),
    score: Type.Number({ minimum: 0, maximum: 100, description: "0 to 100" }),
    violations: Names,
    metrics: RepMetrics,
  },
  { title: "RepRecord", description: "A counted repetition, as the summary lists it.", ...open },
);

export const HoldRecord = Type.Object(
  {
    side: Type.Optional(Side),
    phase: Type.String(),
    start_t: Type.Number(),
    elapsed: Seconds("held, brief breaks within the grace period included"),
    completed: Type.Boolean(),
  },
  { title: "HoldRecord", description: "A hold, as the summary lists it.", ...open },
);

export const SessionSummaryFields = {
  count: Type.Integer({ minimum: 0, description: "counted repetitions, all sides" }),
  counts: Type.Optional(
    Type.Object(
      { left: Type.Integer({ minimum: 0 }), right: Type.Integer({ minimum: 0 }) },
      { description: "per side, when sides are counted separately (sides: both)", ...open },
    ),
  ),
  partials: Type.Integer({ minimum: 0 }),
  score: Type.Number({ description: "mean score of the counted repetitions (0 when none)" }),
  reps: Type.Array(RepRecord, { description: "every counted repetition, in the order they ended" }),
  holds: Type.Array(HoldRecord, { description: "every hold, in the order they started" }),
  longest_hold: Seconds("the longest hold (0 when the MoveSpec has no hold)"),
  frames: Type.Integer({ minimum: 0, description: "frames accepted" }),
  duration: Seconds("from the first to the last accepted frame"),
  reps_omitted: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        "repetitions left out of `reps` to keep the summary within its size limit (the totals cover them)",
    }),
  ),
  holds_omitted: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: "holds left out of `holds` to keep the summary within its size limit",
    }),
  ),
};

export const SessionSummary = Type.Object(SessionSummaryFields, {
  title: "SessionSummary",
  ...open,
});

const envelope = {
  event_seq: Type.Integer({ minimum: 1, description: "per session, from 1, no gaps" }),
  seq: Type.Integer({
    minimum: 0,
    description:
      "the frame that caused the event (session.summary: the last accepted frame, 0 when none was)",
  }),
  t: Type.Number({ description: "that frame's t" }),
  side: Type.Optional(Side),
};

const event = <T extends string, P extends Type.TProperties>(
  type: T,
  description: string,
  payload: P,
) =>
  Type.Object(
    { type: Type.Literal(type), ...envelope, ...payload },
    { title: `Event_${type.replace(".", "_")}`, description, ...open },
  );

/** Every event type, in the order docs/movespec.md lists them. */
export const DETECTION_EVENTS = [
  event("tracking.lost", "Landmarks the MoveSpec needs are not visible.", {
    since_t: Type.Number({ description: "the first frame the gate failed" }),
    missing: Type.Array(Type.String(), {
      description: "landmarks below the visibility threshold",
    }),
  }),
  event("tracking.regained", "They are visible again.", { lost_for: Seconds("lost") }),
  event("phase.entered", "The body entered a phase.", {
    phase: Type.String(),
    previous: Type.Optional(Type.String({ description: "the last phase, if any" })),
    since_t: Type.Number({ description: "when the condition started to hold" }),
    values: Values,
  }),
  event("rep.completed", "A repetition was counted.", {
    count: Type.Integer({ minimum: 1, description: "this side's count" }),
    total: Type.Integer({ minimum: 1, description: "all sides together" }),
    start_t: Type.Number(),
    end_t: Type.Number(),
    score: Type.Number({ minimum: 0, maximum: 100, description: "0 to 100" }),
    violations: Names,
    metrics: RepMetrics,
    values: Values,
  }),
  event("rep.partial", "A repetition was started and not completed.", {
    reason: StringEnum(REP_PARTIAL_REASONS),
    start_t: Type.Number(),
    duration: Seconds("from its start to the frame it ended on"),
    limit: Type.Optional(
      Seconds(
        "the bound of `within` it broke: the minimum for too_fast, the maximum for too_slow and timeout",
      ),
    ),
    reached: Type.Array(Type.String(), { description: "the cycle's phases it reached" }),
    progress: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1, description: "how far it got, when measurable" }),
    ),
    violations: Type.Optional(Names),
    values: Values,
  }),
  event("hold.started", "A hold began.", {
    phase: Type.String(),
    since_t: Type.Number(),
    target: Seconds("the hold's target"),
  }),
  event("hold.progress", "A hold goes on.", {
    phase: Type.String(),
    elapsed: Seconds("held so far"),
    remaining: Seconds("to the target"),
  }),
  event("hold.completed", "A hold reached its target.", {
    phase: Type.String(),
    elapsed: Seconds("held"),
  }),
  event("hold.broken", "A hold ended early.", {
    phase: Type.String(),
    elapsed: Seconds("held"),
    reason: StringEnum(HOLD_BROKEN_REASONS),
  }),
  event("form.violation", "A form rule was broken.", {
    rule: Type.String(),
    severity: StringEnum(FORM_SEVERITIES),
    message: Type.String(),
    rep: Type.Optional(
      Type.Integer({ minimum: 1, description: "the number of the repetition in progress" }),
    ),
    values: Values,
  }),
  event("session.summary", "The last event: what the session counted.", SessionSummaryFields),
] as const;

export const DetectionEvent = Type.Union([...DETECTION_EVENTS], {
  title: "DetectionEvent",
  description:
    "detection-event.v1: `type`, `event_seq`, `seq`, `t`, then the type's payload. New fields may be added.",
});
