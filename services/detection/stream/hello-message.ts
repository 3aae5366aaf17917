import { TOPOLOGY_NAMES, type TopologyName } from "../../../movespec/index.js";

/** The client's `hello`, checked. */
export interface Hello {
  /** Absent when the token came in the Authorization header of the upgrade. */
  readonly runtimeToken?: string;
  readonly topology?: TopologyName;
  /** Width / height of the images the keypoints are normalised to (default: the spec's). */
  readonly aspectRatio?: number;
  /** The highest event_seq the client already has: those events are not sent again. */
  readonly lastEventSeq?: number;
}

export type HelloCheck = { ok: true; hello: Hello } | { ok: false; field: string; message: string };

/** Reads a parsed `{"type":"hello", ...}` message. */
export function readHello(message: Record<string, unknown>): HelloCheck {
  const {
    runtime_token: token,
    topology,
    aspect_ratio: aspect,
    last_event_seq: lastEvent,
  } = message;
  if (token !== undefined && (typeof token !== "string" || token === "")) {
    return { ok: false, field: "runtime_token", message: "runtime_token must be a string" };
  }
  if (topology !== undefined && !TOPOLOGY_NAMES.includes(topology as TopologyName)) {
    return {
      ok: false,
      field: "topology",
      message: `topology must be one of ${TOPOLOGY_NAMES.join(", ")}`,
    };
  }
  if (
    aspect !== undefined &&
    (typeof aspect !== "number" || !Number.isFinite(aspect) || aspect <= 0 || aspect >= 100)
  ) {
    return { ok: false, field: "aspect_ratio", message: "aspect_ratio must be a positive number" };
  }
  if (
    lastEvent !== undefined &&
    (typeof lastEvent !== "number" || !Number.isSafeInteger(lastEvent) || lastEvent < 0)
  ) {
    return {
      ok: false,
      field: "last_event_seq",
      message: "last_event_seq must be an integer >= 0",
    };
  }
  return {
    ok: true,
    hello: {
      runtimeToken: token as string | undefined,
      topology: topology as TopologyName | undefined,
      aspectRatio: aspect as number | undefined,
      lastEventSeq: lastEvent as number | undefined,
    },
  };
}
