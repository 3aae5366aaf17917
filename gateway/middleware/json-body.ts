import type { Middleware } from "koa";
import getRawBody from "raw-body";
import { GatewayReason, Reason } from "../../services/shared/errors/reasons.js";
import { hasLoneSurrogate } from "../../services/shared/text/display-name.js";
import { ApiError } from "../errors/api-error.js";
import type { GatewayState } from "../state.js";

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;

/**
 * Reads a JSON object body, strictly: a body that is not JSON is 415, larger than the limit 413,
 * not parseable 400 MALFORMED_JSON, not an object 400 BODY_NOT_OBJECT. No body leaves
 * `ctx.state.body` undefined.
 */
export function jsonBody(limitBytes: number): Middleware<GatewayState> {
  return async (ctx, next) => {
    ctx.state.body = undefined;
    if (!hasBody(ctx.req.headers)) return next();
    const mediaType = (ctx.get("content-type").split(";")[0] ?? "").trim();
    if (!JSON_MEDIA_TYPE.test(mediaType)) {
      throw new ApiError(
        "unsupported_media_type",
        GatewayReason.contentTypeNotJson,
        "request bodies must be JSON (Content-Type: application/json)",
        { received: mediaType || "(none)" },
      );
    }
    let text: string;
    try {
      text = await getRawBody(ctx.req, {
        limit: limitBytes,
        length: ctx.get("content-length") || undefined,
        encoding: "utf8",
      });
    } catch (error) {
      const type = (error as { type?: string }).type;
      if (type === "entity.too.large") {
        throw new ApiError(
          "payload_too_large",
          GatewayReason.bodyTooLarge,
          `request body exceeds ${limitBytes} bytes`,
          { limit_bytes: limitBytes },
        );
      }
      throw new ApiError(
        "invalid_argument",
        GatewayReason.bodyUnreadable,
        "request body could not be read",
      );
    }
    if (text.trim() === "") return next();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ApiError(
        "invalid_argument",
        GatewayReason.malformedJson,
        "request body is not valid JSON",
      );
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new ApiError(
        "invalid_argument",
        GatewayReason.bodyNotObject,
        "request body must be a JSON object",
      );
    }
    const broken = illFormedField(parsed, "");
    if (broken !== undefined) {
      // "\ud800" parses to a string UTF-8 cannot carry: the services would store U+FFFD instead.
      throw new ApiError(
        "invalid_argument",
        Reason.fieldInvalid,
        `${broken || "a key"} holds a lone surrogate (not valid Unicode text)`,
        { field: broken, problem: "lone_surrogate" },
      );
    }
    ctx.state.body = parsed as Record<string, unknown>;
    return next();
  };
}

/** The path of the first string (or key) that is not well-formed UTF-16, if any. */
function illFormedField(value: unknown, path: string): string | undefined {
  if (typeof value === "string") return hasLoneSurrogate(value) ? path : undefined;
  if (typeof value !== "object" || value === null) return undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = illFormedField(item, `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const here = path === "" ? key : `${path}.${key}`;
    if (hasLoneSurrogate(key)) return here;
    const found = illFormedField(item, here);
    if (found !== undefined) return found;
  }
  return undefined;
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers["content-length"];
  if (headers["transfer-encoding"] !== undefined) return true;
  return length !== undefined && length !== "0";
}
