/**
 * The realtime stream in a few paragraphs of Markdown, generated from the stream's schemas and
 * codes (services/shared/api/stream.ts): part of both documents, so /docs shows it too.
 */
import {
  CLIENT_MESSAGES,
  CLOSE_CODES,
  DETECTION_EVENTS,
  MAX_MESSAGE_BYTES,
  SERVER_MESSAGES,
} from "@movement-detection/shared/api";

type Message = { properties: Record<string, unknown>; description?: string };

function messageRow(schema: unknown): string {
  const message = schema as Message & { properties: { type: { const: string } } };
  const fields = Object.keys(message.properties).filter((name) => name !== "type");
  const shown = fields.length > 0 ? fields.map((f) => `\`${f}\``).join(", ") : "";
  return `| \`${message.properties.type.const}\` | ${shown} | ${message.description ?? ""} |`;
}

export const ATTACH_RULES = `**Attach.** \`POST /api/detection/sessions\` answers \`stream_url\` and \`runtime_token\`. Open a websocket to \`stream_url\` and send \`{"type":"hello","runtime_token":"..."}\` as the first message within 5 s (non-browser clients may instead send \`Authorization: Bearer <runtime_token>\` on the upgrade). The token never goes in the URL. The server answers \`ready\`; then send \`frame\` or \`frames\` messages, and \`finalize\` at the end. One live attachment per session: a second one takes over and the first is closed with 4409. Messages are JSON text, one object each, at most ${MAX_MESSAGE_BYTES / 1024} KiB.

**Resume.** Keep every frame until an \`ack\` covers it (\`last_seq\`). After a reconnect (on 1001, 1011 and 1013, with backoff), send \`hello\` with \`last_event_seq\` (the last event you have); \`ready.last_seq\` says which frames the server has: resend the ones above it. A frame whose \`seq\` is not above the last accepted one is ignored, so resending is safe; give up on the 44xx codes.`;

export function streamOverview(): string {
  return [
    "## Realtime stream (contract 1)",
    "",
    ATTACH_RULES,
    "",
    "| client → server | fields | |",
    "|---|---|---|",
    ...CLIENT_MESSAGES.map(messageRow),
    "",
    'Binary frames (opt-in): after a hello with `"frame_encoding": "binary"`, frames may come as binary messages (`BinaryFrames` in the AsyncAPI document: an 8-byte header, then per frame float64 seq, float64 t, uint32 flags, uint32 0 and float32 values).',
    "",
    "| server → client | fields | |",
    "|---|---|---|",
    ...SERVER_MESSAGES.map(messageRow),
    "",
    `Detection events (detection-event.v1) carry \`type\`, \`event_seq\`, \`seq\`, \`t\`: ${DETECTION_EVENTS.map(
      (event) =>
        `\`${(event as unknown as Message & { properties: { type: { const: string } } }).properties.type.const}\``,
    ).join(", ")}.`,
    "",
    "| close code | meaning | reconnect | `error.code` before it |",
    "|---|---|---|---|",
    ...CLOSE_CODES.map(
      (close) =>
        `| ${close.code} | ${close.meaning} | ${close.reconnect ? "yes" : "no"} | ${close.errors.map((e) => `\`${e}\``).join(", ")} |`,
    ),
    "",
    "The machine-readable description of the stream is the AsyncAPI 3 document at `/asyncapi.json`.",
  ].join("\n");
}
