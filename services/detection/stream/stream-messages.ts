/**
 * The server's messages of the realtime stream, contract 1 (docs/realtime.md): JSON text, one
 * object per message, each with a `type`. Built as strings, since every one is sent at once.
 */
import type { DetectionEvent } from "@movement-detection/movespec";
import type { SessionStatus } from "../domain/session-document.js";

export const INPUT_SCHEMA_VERSION = "pose-frame.v1";
export const OUTPUT_SCHEMA_VERSION = "detection-event.v1";

export interface ReadyFields {
  readonly sessionId: string;
  readonly status: SessionStatus;
  readonly mode: string;
  readonly topology: string;
  readonly acceptedFramesTotal: number;
  /** -1 when no frame was accepted yet (then omitted). */
  readonly lastSeq: number;
  readonly maxMessageBytes: number;
  readonly liveMaxFps: number;
  readonly frameEncoding: string;
}

export function readyMessage(fields: ReadyFields): string {
  return JSON.stringify({
    type: "ready",
    session_id: fields.sessionId,
    status: fields.status,
    mode: fields.mode,
    input_schema_version: INPUT_SCHEMA_VERSION,
    output_schema_version: OUTPUT_SCHEMA_VERSION,
    topology: fields.topology,
    accepted_frames_total: fields.acceptedFramesTotal,
    last_seq: fields.lastSeq >= 0 ? fields.lastSeq : undefined,
    limits: { max_message_bytes: fields.maxMessageBytes, live_max_fps: fields.liveMaxFps },
    frame_encoding: fields.frameEncoding,
  });
}

export function eventMessage(event: DetectionEvent): string {
  return `{"type":"event","event":${JSON.stringify(event)}}`;
}

/**
 * The `session.summary` event's message from its JSON text (as stored in terminal_outcome): the
 * same text as eventMessage of the event, without writing megabytes of JSON a second time.
 */
export function summaryEventMessage(summaryText: string): string {
  return `{"type":"event","event":${summaryText}}`;
}

/** Frames up to `lastSeq` are durable: a client may forget them. */
export function ackMessage(acceptedFramesTotal: number, lastSeq: number): string {
  return lastSeq >= 0
    ? `{"type":"ack","accepted_frames_total":${acceptedFramesTotal},"last_seq":${lastSeq}}`
    : `{"type":"ack","accepted_frames_total":${acceptedFramesTotal}}`;
}

export function warningMessage(code: string, message: string, seq?: number): string {
  return JSON.stringify({ type: "warning", code, message, seq });
}

export function errorMessage(code: string, message: string): string {
  return JSON.stringify({ type: "error", code, message });
}

export interface EndFields {
  readonly status: SessionStatus;
  readonly acceptedFramesTotal: number;
  readonly terminalOutcome?: string;
  readonly errorCode?: string;
  readonly errorMessage?: string;
}

export function endMessage(fields: EndFields): string {
  return JSON.stringify({
    type: "end",
    status: fields.status,
    accepted_frames_total: fields.acceptedFramesTotal,
    terminal_outcome: fields.terminalOutcome,
    error_code: fields.errorCode,
    error_message: fields.errorMessage,
  });
}

export const PONG_MESSAGE = '{"type":"pong"}';
