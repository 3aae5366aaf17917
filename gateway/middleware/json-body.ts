import { GatewayReason, Reason } from "@movement-detection/shared/errors";
import { hasLoneSurrogate } from "@movement-detection/shared/text";
import type { Middleware } from "koa";
import getRawBody from "raw-body";
import { ApiError } from "../errors/api-error.js";
import type { GatewayState } from "../state.js";

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;
const UTF8_NAMES = new Set(["utf-8", "utf8"]);
/** The longest field path an error names before it is cut (with "..."). */
const MAX_PATH_LENGTH = 200;
/** Strict: a byte sequence that is not UTF-8 throws (a TypeError) instead of becoming U+FFFD. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The `charset` parameter of a Content-Type, lowercase and unquoted, if there is one. */
function charsetOf(parameters: readonly string[]): string | undefined {
  for (const parameter of parameters) {
    const [name, value = ""] = parameter.split("=");
    if (name.trim().toLowerCase() === "charset") {
      return value
        .trim()
        .replace(/^"(.*)"$/, "$1")
        .toLowerCase();
    }
  }
  return undefined;
}

/**
 * Reads a JSON object body, strictly: a body that is not JSON is 415, larger than the limit 413,
 * not parseable 400 MALFORMED_JSON, not an object 400 BODY_NOT_OBJECT. No body leaves
 * `ctx.state.body` undefined.
 */
export function jsonBody(limitBytes: number, timeoutMs: number): Middleware<GatewayState> {
  return async (ctx, next) => {
    ctx.state.body = undefined;
    if (!hasBody(ctx.req.headers)) return next();
    const [mediaType = "", ...parameters] = ctx.get("content-type").split(";");
    if (!JSON_MEDIA_TYPE.test(mediaType.trim())) {
      throw new ApiError(
        "unsupported_media_type",
        GatewayReason.contentTypeNotJson,
        "request bodies must be JSON (Content-Type: application/json)",
        { received: mediaType.trim() || "(none)" },
      );
    }
    const charset = charsetOf(parameters);
    if (charset !== undefined && !UTF8_NAMES.has(charset)) {
      // JSON exchanged between systems is UTF-8 (RFC 8259, 8.1): read as such, it would be wrong.
      throw new ApiError(
        "unsupported_media_type",
        GatewayReason.contentTypeNotJson,
        `request bodies must be UTF-8 JSON, not charset=${charset}`,
        { received: `${mediaType.trim()}; charset=${charset}` },
      );
    }
    const encoding = ctx.get("content-encoding").trim().toLowerCase();
    if (encoding !== "" && encoding !== "identity") {
      // Bodies are small and JSON: nothing here inflates them (nor risks a decompression bomb).
      ctx.set("Accept-Encoding", "identity");
      throw new ApiError(
        "unsupported_media_type",
        GatewayReason.contentTypeNotJson,
        `request bodies must not be content-encoded (Content-Encoding: ${encoding})`,
        { received_encoding: encoding },
      );
    }
    let bytes: Buffer;
    let timer: NodeJS.Timeout | undefined;
    try {
      const reading = getRawBody(ctx.req, {
        limit: limitBytes,
        length: ctx.get("content-length") || undefined,
      });
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new BodyTimeout()), timeoutMs);
      });
      bytes = await Promise.race([reading, late]);
    } catch (error) {
      if (error instanceof BodyTimeout) {
        // The rest of the body, if it ever comes, must not be read as the next request.
        ctx.set("Connection", "close");
        ctx.res.once("finish", () => ctx.req.socket.destroy());
        throw new ApiError(
          "invalid_argument",
          GatewayReason.bodyUnreadable,
          `the request body did not arrive whole within ${timeoutMs} ms`,
          { timeout_ms: timeoutMs },
        );
      }
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
    } finally {
      clearTimeout(timer);
    }
    let text: string;
    try {
      text = UTF8.decode(bytes);
    } catch {
      throw new ApiError(
        "invalid_argument",
        GatewayReason.bodyUnreadable,
        "request body is not valid UTF-8",
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
    const found = illFormedField(parsed);
    if (found !== undefined) {
      // "\ud800" parses to a string UTF-8 cannot carry: the services would store U+FFFD instead.
      // A path deep in a nested body is cut: the answer must not echo hundreds of KB of it.
      const broken =
        found.length > MAX_PATH_LENGTH ? `${found.slice(0, MAX_PATH_LENGTH)}...` : found;
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

/**
 * The path of the first string (or key) that is not well-formed UTF-16, in document order, if
 * any. Iterative: a body nested 100,000 levels deep (JSON.parse takes it) must not overflow the
 * call stack.
 */
function illFormedField(body: object): string | undefined {
  // A key is checked (`key`) before its value is walked; items are pushed last to first.
  const pending: { value: unknown; path: string; key?: string }[] = [{ value: body, path: "" }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path, key } = next;
    if (key !== undefined) {
      if (hasLoneSurrogate(key)) return path;
    } else if (typeof value === "string") {
      if (hasLoneSurrogate(value)) return path;
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i -= 1) {
        pending.push({ value: value[i], path: `${path}[${i}]` });
      }
    } else if (typeof value === "object" && value !== null) {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i -= 1) {
        const [name, item] = entries[i];
        const here = path === "" ? name : `${path}.${name}`;
        pending.push({ value: item, path: here }, { value: undefined, path: here, key: name });
      }
    }
  }
  return undefined;
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers["content-length"];
  if (headers["transfer-encoding"] !== undefined) return true;
  return length !== undefined && length !== "0";
}

/** A body that was not whole in time (raw-body has no deadline of its own). */
class BodyTimeout extends Error {}
