/**
 * detection-event.v1: the events the engine emits, as TypeScript types derived from their one
 * definition, the JSON Schema in event-schema.ts (imported for its types only: the engine does
 * not carry the schema at run time).
 */
import type Type from "typebox";
import type {
  DetectionEvent as DetectionEventSchema,
  EVENT_SIDES,
  HoldRecord as HoldRecordSchema,
  RepMetrics as RepMetricsSchema,
  RepRecord as RepRecordSchema,
  SessionSummary as SessionSummarySchema,
  SignalStats as SignalStatsSchema,
  Values as ValuesSchema,
} from "./event-schema.js";

export type EventSide = (typeof EVENT_SIDES)[number];
export type Values = Type.Static<typeof ValuesSchema>;
export type SignalStats = Type.Static<typeof SignalStatsSchema>;
export type RepMetrics = Type.Static<typeof RepMetricsSchema>;
export type RepRecord = Type.Static<typeof RepRecordSchema>;
export type HoldRecord = Type.Static<typeof HoldRecordSchema>;
export type SessionSummary = Type.Static<typeof SessionSummarySchema>;
export type DetectionEvent = Type.Static<typeof DetectionEventSchema>;
export type EventType = DetectionEvent["type"];

/** Rounds to milliseconds / 3 decimals so events are short and stable. */
export function r3(x: number): number {
  const v = Math.round(x * 1000) / 1000;
  return v === 0 ? 0 : v;
}
