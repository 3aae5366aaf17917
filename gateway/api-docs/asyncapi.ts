/**
 * The AsyncAPI 3 document of the realtime stream, generated from the stream's schemas and codes
 * (services/shared/api/stream.ts). It describes the service's side of the websocket: it
 * *receives* the client's messages and *sends* its own. Served at /asyncapi.json and written to
 * docs/api/asyncapi.json.
 */
import {
  BINARY_FRAME_HEADER_BYTES,
  BINARY_FRAME_NO_PERSON,
  BINARY_FRAMES_DESCRIPTION,
  BINARY_FRAMES_HEADER_BYTES,
  BINARY_FRAMES_VERSION,
  CLIENT_MESSAGES,
  CLOSE_CODES,
  DetectionEvent,
  PoseFrame,
  SERVER_MESSAGES,
} from "@movement-detection/shared/api";
import { SchemaComponents } from "./components.js";
import { exampleOf } from "./examples.js";
import { API_VERSION } from "./openapi.js";
import { ATTACH_RULES, streamOverview } from "./stream-overview.js";

type Json = Record<string, unknown>;

interface MessageSchema {
  title: string;
  description?: string;
  properties: { type: { const: string } };
}

export function asyncApiDocument(): Json {
  const components = new SchemaComponents("#/components/schemas/");
  components.use(PoseFrame);
  components.use(DetectionEvent);
  const messages: Record<string, Json> = {};
  const channelMessages: Record<string, Json> = {};
  const operations: Record<string, Json> = {};
  const describe = (schemas: readonly unknown[], action: "receive" | "send") => {
    for (const schema of schemas) {
      const message = JSON.parse(JSON.stringify(schema)) as MessageSchema;
      const type = message.properties.type.const;
      messages[type] = {
        name: type,
        title: message.title,
        summary: message.description,
        contentType: "application/json",
        payload: components.use(schema),
        examples: [{ name: type, payload: exampleOf(message as unknown as Json) }],
      };
      channelMessages[type] = { $ref: `#/components/messages/${type}` };
      const verb = action === "receive" ? "receive" : "send";
      operations[`${verb}${type[0].toUpperCase()}${type.slice(1)}`] = {
        action,
        channel: { $ref: "#/channels/sessionStream" },
        summary: `${action === "receive" ? "The client sends" : "The server sends"} \`${type}\``,
        messages: [{ $ref: `#/channels/sessionStream/messages/${type}` }],
      };
    }
  };
  describe(CLIENT_MESSAGES, "receive");
  // The one binary message: frames packed as float32, when the hello asked for them.
  messages.binaryFrames = {
    name: "binaryFrames",
    title: "BinaryFrames",
    summary: "A batch of pose frames as one binary message (opt-in: hello.frame_encoding).",
    description: BINARY_FRAMES_DESCRIPTION,
    contentType: "application/octet-stream",
    payload: { type: "string", format: "binary", description: BINARY_FRAMES_DESCRIPTION },
    "x-binary-layout": {
      version: BINARY_FRAMES_VERSION,
      header_bytes: BINARY_FRAMES_HEADER_BYTES,
      frame_header_bytes: BINARY_FRAME_HEADER_BYTES,
      no_person_flag: BINARY_FRAME_NO_PERSON,
      little_endian: true,
    },
  };
  channelMessages.binaryFrames = { $ref: "#/components/messages/binaryFrames" };
  operations.receiveBinaryFrames = {
    action: "receive",
    channel: { $ref: "#/channels/sessionStream" },
    summary: "The client sends binary frames (after a hello with frame_encoding binary)",
    messages: [{ $ref: "#/channels/sessionStream/messages/binaryFrames" }],
  };
  describe(SERVER_MESSAGES, "send");

  return {
    asyncapi: "3.0.0",
    info: {
      title: "Movement detection service realtime stream",
      version: API_VERSION,
      description: `Stream pose frames, get detection events back. This document describes the service's side: it receives the client's messages and sends its own.\n\n${streamOverview()}`,
    },
    defaultContentType: "application/json",
    servers: {
      local: {
        host: "localhost:8080",
        protocol: "ws",
        description: "a local `npm start` (production: wss:// at the public base URL)",
      },
    },
    channels: {
      sessionStream: {
        address: "/api/detection/sessions/{session_id}/stream",
        title: "A detection session's stream",
        description: ATTACH_RULES,
        parameters: { session_id: { description: "the session (from `stream_url`)" } },
        messages: channelMessages,
        bindings: {
          ws: {
            method: "GET",
            headers: {
              type: "object",
              properties: {
                Authorization: {
                  type: "string",
                  description: "optional: `Bearer <runtime_token>` instead of the token in `hello`",
                },
              },
            },
          },
        },
        "x-close-codes": CLOSE_CODES,
      },
    },
    operations,
    components: { messages, schemas: components.schemas },
  };
}
