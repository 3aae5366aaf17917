import type { Middleware } from "koa";
import getRawBody from "raw-body";
import { GatewayReason } from "../../services/shared/errors/reasons.js";
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
    ctx.state.body = parsed as Record<string, unknown>;
    return next();
  };
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers["content-length"];
  if (headers["transfer-encoding"] !== undefined) return true;
  return length !== undefined && length !== "0";
}
