import { StreamWarning } from "../reasons.js";

/** A client's text message read as the JSON object every message is, or why it is not one. */
export type ClientMessage =
  | { readonly ok: true; readonly message: Record<string, unknown> }
  | {
      readonly ok: false;
      readonly code: typeof StreamWarning.malformedJson | typeof StreamWarning.messageInvalid;
      readonly message: string;
    };

/**
 * The one JSON reading of a text message, before `hello` and after it: what happens to a message
 * that is not an object is the caller's (a refusal before `hello`, a warning after).
 */
export function parseClientMessage(data: Buffer): ClientMessage {
  let message: unknown;
  try {
    message = JSON.parse(data.toString("utf8"));
  } catch {
    return {
      ok: false,
      code: StreamWarning.malformedJson,
      message: "the message is not valid JSON",
    };
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    return {
      ok: false,
      code: StreamWarning.messageInvalid,
      message: "a message is a JSON object with a type",
    };
  }
  return { ok: true, message: message as Record<string, unknown> };
}
