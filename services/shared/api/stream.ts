/**
 * The realtime stream, contract 1 (docs/realtime.md): JSON text messages, one object each, each
 * with a `type`. The client's messages, the server's, the detection events (detection-event.v1)
 * they carry, and the close and error codes. Served as the AsyncAPI document /asyncapi.json.
 */

import {
  DETECTION_EVENTS,
  DetectionEvent,
  TOPOLOGY_NAMES,
} from "@movement-detection/movespec/contract";
import { type Static, StringEnum, Type, Uuid } from "./schema-kit.js";

/** The keypoint layouts the engine knows (movespec/topology.ts). */
export const TOPOLOGIES = TOPOLOGY_NAMES as readonly ["blazepose-33", "coco-17"];
export const MAX_MESSAGE_BYTES = 64 * 1024;

/** How the client sends its frames, chosen in `hello`: JSON messages (default) or binary ones. */
export const FRAME_ENCODINGS = ["json", "binary"] as const;
export type FrameEncoding = (typeof FRAME_ENCODINGS)[number];

/**
 * A binary frames message (docs/realtime.md, "Binary frames"), little-endian: an 8-byte header,
 * then `frame_count` frames of equal size (movespec/engine/packed-frames.ts):
 *
 *   offset 0  uint8   layout version, 1
 *   offset 1  uint8   values per keypoint: 2 (x, y), 3 (x, y, z) or 4 (x, y, z, visibility)
 *   offset 2  uint16  keypoints per frame: the topology's (33 for blazepose-33, 17 for coco-17)
 *   offset 4  uint32  frame_count, at least 1
 *   offset 8  frame_count × (float64 seq, float64 t, uint32 flags, uint32 0, float32 values...)
 */
export const BINARY_FRAMES_VERSION = 1;
export const BINARY_FRAMES_HEADER_BYTES = 8;
/** Bytes before each frame's values: seq, t, flags, reserved. */
export const BINARY_FRAME_HEADER_BYTES = 24;
/** Frame flag bit 0: the pose model found no person (JSON's `keypoints: null`). */
export const BINARY_FRAME_NO_PERSON = 1;

/** The binary frames message, in words (the AsyncAPI document and docs/realtime.md). */
export const BINARY_FRAMES_DESCRIPTION = `Frames as one binary websocket message, after a hello with \`"frame_encoding": "binary"\`. Little-endian. Header (8 bytes): uint8 layout version (${BINARY_FRAMES_VERSION}), uint8 values per keypoint (2: x, y; 3: x, y, z; 4: x, y, z, visibility), uint16 keypoints per frame (the topology's: 33 or 17), uint32 frame count (at least 1). Then each frame, all of the same size (${BINARY_FRAME_HEADER_BYTES} + 4 × keypoints × values bytes): float64 seq (an integer), float64 t (seconds), uint32 flags (bit 0: no person in the picture, the values are ignored; other bits 0), uint32 0, then the keypoints' values as float32 in the topology's order. A message whose size is not exactly what its header announces, or whose header is unknown, is answered with the warning BINARY_FRAMES_INVALID and nothing of it is counted; each frame is then checked like a JSON frame (FRAME_MALFORMED, TIME_NOT_INCREASING, COORDINATE_INVALID for NaN or infinite values, ...). The 64 KiB message limit holds: 118 BlazePose frames with 4 values.`;

/** `error` codes: sent just before the server closes a stream. */
export const StreamError = {
  helloRequired: "HELLO_REQUIRED",
  helloTimeout: "HELLO_TIMEOUT",
  tokenInvalid: "TOKEN_INVALID",
  tokenExpired: "TOKEN_EXPIRED",
  tokenSessionMismatch: "TOKEN_SESSION_MISMATCH",
  sessionNotFound: "SESSION_NOT_FOUND",
  sessionTerminal: "SESSION_TERMINAL",
  replaced: "REPLACED",
  leaseLost: "LEASE_LOST",
  leaseUnavailable: "LEASE_UNAVAILABLE",
  rateLimited: "RATE_LIMITED",
  topologyUnsupported: "TOPOLOGY_UNSUPPORTED",
  topologyMismatch: "TOPOLOGY_MISMATCH",
  serviceRestarting: "SERVICE_RESTARTING",
  serviceUnavailable: "SERVICE_UNAVAILABLE",
  internal: "INTERNAL",
} as const;

/** `warning` codes: the message (or frame) was ignored, the stream goes on. */
export const StreamWarning = {
  malformedJson: "MALFORMED_JSON",
  messageInvalid: "MESSAGE_INVALID",
  unknownType: "UNKNOWN_MESSAGE_TYPE",
  binaryUnsupported: "BINARY_NOT_SUPPORTED",
  binaryInvalid: "BINARY_FRAMES_INVALID",
  sessionFinalizing: "SESSION_FINALIZING",
  moreRejected: "MORE_FRAMES_REJECTED",
  eventsNotResent: "EVENTS_NOT_RESENT",
} as const;

/** Why the engine rejected a frame (also `warning` codes). */
export const FRAME_REJECTIONS = [
  "FRAME_MALFORMED",
  "TIME_NOT_INCREASING",
  "KEYPOINT_COUNT_MISMATCH",
  "COORDINATE_INVALID",
] as const;

/** Why a session ended other than `completed` (its `error_code`). */
export const EndReason = {
  attachTimeout: "ATTACH_TIMEOUT",
  idleTimeout: "IDLE_TIMEOUT",
  maxDuration: "SESSION_MAX_DURATION_EXCEEDED",
  frameLimit: "FRAME_LIMIT_EXCEEDED",
  checkpointUnusable: "CHECKPOINT_UNUSABLE",
} as const;

/** Websocket close codes of contract 1 (plus the standard ones for restarts). */
export const CloseCode = {
  normal: 1000,
  goingAway: 1001,
  policy: 1008,
  tooBig: 1009,
  internal: 1011,
  tryAgainLater: 1013,
  unauthenticated: 4401,
  unknownSession: 4404,
  replaced: 4409,
  terminal: 4410,
  rateLimited: 4429,
} as const;

/** Every close code: what it means, whether a client reconnects, the `error` codes before it. */
export const CLOSE_CODES: readonly {
  readonly code: number;
  readonly meaning: string;
  readonly reconnect: boolean;
  readonly errors: readonly string[];
}[] = [
  {
    code: 1000,
    meaning: "the session ended (completed, or cancelled while attached)",
    reconnect: false,
    errors: [EndReason.idleTimeout],
  },
  {
    code: 1001,
    meaning: "the replica is shutting down: reconnect to resume",
    reconnect: true,
    errors: [StreamError.serviceRestarting],
  },
  {
    code: 1008,
    meaning: "policy: session limits, topology",
    reconnect: false,
    errors: [
      EndReason.maxDuration,
      EndReason.frameLimit,
      StreamError.topologyUnsupported,
      StreamError.topologyMismatch,
    ],
  },
  { code: 1009, meaning: "a message above 64 KiB", reconnect: false, errors: [] },
  {
    code: 1011,
    meaning: "the replica lost its store, or the checkpoint cannot be restored: reconnect",
    reconnect: true,
    errors: [StreamError.serviceUnavailable, EndReason.checkpointUnusable],
  },
  {
    code: 1013,
    meaning: "try again later (the session is held by a replica that did not let go in time)",
    reconnect: true,
    errors: [StreamError.leaseUnavailable],
  },
  {
    code: 4401,
    meaning:
      "unauthenticated: no valid hello within 5 s, first message not a hello, a bad, expired or foreign token",
    reconnect: false,
    errors: [
      StreamError.helloTimeout,
      StreamError.helloRequired,
      StreamError.tokenInvalid,
      StreamError.tokenExpired,
      StreamError.tokenSessionMismatch,
    ],
  },
  {
    code: 4404,
    meaning: "the path's session does not exist",
    reconnect: false,
    errors: [StreamError.sessionNotFound],
  },
  {
    code: 4409,
    meaning: "another attachment of this session took over (the newer wins)",
    reconnect: false,
    errors: [StreamError.replaced, StreamError.leaseLost],
  },
  {
    code: 4410,
    meaning: "the session already ended",
    reconnect: false,
    errors: [StreamError.sessionTerminal],
  },
  {
    code: 4429,
    meaning: "a live client above the frame rate; the session stays open: reconnect at a sane rate",
    reconnect: false,
    errors: [StreamError.rateLimited],
  },
];

// --- client -> server -----------------------------------------------------------------------------

export const Hello = Type.Object(
  {
    type: Type.Literal("hello"),
    runtime_token: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "the session's runtime_token; may be left out when the upgrade carried `Authorization: Bearer <runtime_token>`",
      }),
    ),
    topology: Type.Optional(
      StringEnum(TOPOLOGIES, {
        default: "blazepose-33",
        description: "the keypoint layout of the frames; fixed by the session's first attachment",
      }),
    ),
    aspect_ratio: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        exclusiveMaximum: 100,
        description:
          "image width / height (x and y are normalised per axis); default: the MoveSpec's, else 16:9",
        examples: [1.7778],
      }),
    ),
    last_event_seq: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        description: "events up to this event_seq are not sent again (resume)",
      }),
    ),
    frame_encoding: Type.Optional(
      StringEnum(FRAME_ENCODINGS, {
        default: "json",
        description:
          "`binary`: frames come as binary messages (BinaryFrames), for this attachment; every other message stays JSON text",
      }),
    ),
  },
  {
    title: "Hello",
    description:
      "The first message, within 5 s of the upgrade: attaches the connection to the session.",
  },
);

const Keypoint = Type.Array(Type.Number(), {
  minItems: 2,
  maxItems: 4,
  description: "[x, y], [x, y, z] or [x, y, z, visibility]; x and y normalised to the image, 0..1",
  examples: [[0.4968, 0.2789, 0.0142, 0.95]],
});

const frameFields = {
  seq: Type.Integer({
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description:
      "strictly increasing; a seq not above the last accepted one is ignored (safe resend)",
  }),
  t: Type.Number({ minimum: 0, description: "seconds since the client's start" }),
  keypoints: Type.Union([Type.Array(Keypoint, { minItems: 1 }), Type.Null()], {
    description:
      "in the topology's order (33 for blazepose-33, 17 for coco-17); null when the pose model found no person in the picture",
  }),
};

export const PoseFrame = Type.Object(frameFields, {
  title: "PoseFrame",
  description: "pose-frame.v1",
});

export const Frame = Type.Object(
  { type: Type.Literal("frame"), ...frameFields },
  { title: "Frame", description: "One pose frame." },
);

export const Frames = Type.Object(
  {
    type: Type.Literal("frames"),
    frames: Type.Array(PoseFrame, {
      description: "a batch; the whole message stays under 64 KiB (about 45 BlazePose frames)",
    }),
  },
  { title: "Frames", description: "A batch of pose frames (replay, or live with batching)." },
);

export const Finalize = Type.Object(
  { type: Type.Literal("finalize") },
  {
    title: "Finalize",
    description: "Ends the session: every frame received is evaluated, then the summary and `end`.",
  },
);

export const Ping = Type.Object(
  { type: Type.Literal("ping") },
  { title: "Ping", description: "Answered with `pong`; counts as activity." },
);

// --- detection events (detection-event.v1): defined once, in movespec/engine/event-schema.ts ---

export { DETECTION_EVENTS, DetectionEvent };

// --- server -> client -----------------------------------------------------------------------------

export const Ready = Type.Object(
  {
    type: Type.Literal("ready"),
    session_id: Uuid("the session"),
    status: Type.String({ examples: ["created"] }),
    mode: StringEnum(["live", "replay"] as const),
    input_schema_version: Type.String({ examples: ["pose-frame.v1"] }),
    output_schema_version: Type.String({ examples: ["detection-event.v1"] }),
    topology: StringEnum(TOPOLOGIES),
    accepted_frames_total: Type.Integer({ minimum: 0 }),
    last_seq: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "the resume point: resend unacknowledged frames above it (absent before the first accepted frame)",
      }),
    ),
    limits: Type.Object({
      max_message_bytes: Type.Integer({ examples: [MAX_MESSAGE_BYTES] }),
      live_max_fps: Type.Number({ examples: [120] }),
    }),
    frame_encoding: StringEnum(FRAME_ENCODINGS, {
      description: "the encoding of this attachment's frames, as the hello asked",
    }),
  },
  { title: "Ready", description: "Attached: frames may flow." },
);

export const EventMessage = Type.Object(
  { type: Type.Literal("event"), event: DetectionEvent },
  {
    title: "EventMessage",
    description: "A detection event. Drop any whose event_seq you already have.",
  },
);

export const Ack = Type.Object(
  {
    type: Type.Literal("ack"),
    accepted_frames_total: Type.Integer({ minimum: 0 }),
    last_seq: Type.Optional(
      Type.Integer({ minimum: 0, description: "every frame up to it is durable: forget them" }),
    ),
  },
  { title: "Ack", description: "Periodic: what the server made durable." },
);

export const Warning = Type.Object(
  {
    type: Type.Literal("warning"),
    code: Type.String({
      description: `${[...Object.values(StreamWarning), ...FRAME_REJECTIONS].join(", ")}`,
    }),
    message: Type.String(),
    seq: Type.Optional(Type.Integer({ description: "the rejected frame's seq" })),
  },
  {
    title: "Warning",
    description:
      "A message or frame was ignored and not counted (or, EVENTS_NOT_RESENT, events sent before a reconnect are no longer kept); the stream goes on.",
  },
);

export const ErrorMessage = Type.Object(
  {
    type: Type.Literal("error"),
    code: Type.String({
      description: [...Object.values(StreamError), ...Object.values(EndReason)].join(", "),
    }),
    message: Type.String(),
  },
  { title: "ErrorMessage", description: "Sent just before the server closes the connection." },
);

export const End = Type.Object(
  {
    type: Type.Literal("end"),
    status: Type.String({ examples: ["completed"] }),
    accepted_frames_total: Type.Integer({ minimum: 0 }),
    terminal_outcome: Type.Optional(
      Type.String({ description: "the session.summary event as JSON text" }),
    ),
    error_code: Type.Optional(Type.String()),
    error_message: Type.Optional(Type.String()),
  },
  {
    title: "End",
    description: "The session ended (also sent to anyone attaching a terminal session).",
  },
);

export const Pong = Type.Object(
  { type: Type.Literal("pong") },
  { title: "Pong", description: "The answer to `ping`." },
);

export const CLIENT_MESSAGES = [Hello, Frame, Frames, Finalize, Ping] as const;
export const SERVER_MESSAGES = [
  Ready,
  EventMessage,
  Ack,
  Warning,
  ErrorMessage,
  End,
  Pong,
] as const;

export type HelloJson = Static<typeof Hello>;
export type PoseFrameJson = Static<typeof PoseFrame>;
export type DetectionEventJson = Static<typeof DetectionEvent>;
export type ReadyJson = Static<typeof Ready>;
export type AckJson = Static<typeof Ack>;
export type WarningJson = Static<typeof Warning>;
export type ErrorMessageJson = Static<typeof ErrorMessage>;
export type EndJson = Static<typeof End>;
