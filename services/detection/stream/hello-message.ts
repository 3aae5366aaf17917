import type { TopologyName } from "@movement-detection/movespec";
import {
  compileChecker,
  type FrameEncoding,
  Hello as HelloSchema,
} from "@movement-detection/shared/api";

/** The client's `hello`, checked. */
export interface Hello {
  /** Absent when the token came in the Authorization header of the upgrade. */
  readonly runtimeToken?: string;
  readonly topology?: TopologyName;
  /** Width / height of the images the keypoints are normalised to (default: the spec's). */
  readonly aspectRatio?: number;
  /** The highest event_seq the client already has: those events are not sent again. */
  readonly lastEventSeq?: number;
  /** How this attachment's frames come: JSON messages, or binary ones (docs/realtime.md). */
  readonly frameEncoding: FrameEncoding;
}

/** Not a valid hello: the first invalid field decides the answer, the message names them all. */
export type HelloCheck = { ok: true; hello: Hello } | { ok: false; field: string; message: string };

const checkHello = compileChecker(HelloSchema);

/** Reads a parsed `{"type":"hello", ...}` message against the stream's schema (services/shared/api). */
export function readHello(message: Record<string, unknown>): HelloCheck {
  const result = checkHello(message);
  if (!result.ok) {
    return {
      ok: false,
      field: result.errors[0].field,
      message: result.errors.map((error) => error.message).join("; "),
    };
  }
  const hello = result.value;
  return {
    ok: true,
    hello: {
      runtimeToken: hello.runtime_token,
      topology: hello.topology,
      aspectRatio: hello.aspect_ratio,
      lastEventSeq: hello.last_event_seq,
      frameEncoding: hello.frame_encoding ?? "json",
    },
  };
}
