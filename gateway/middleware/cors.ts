import cors from "@koa/cors";
import { ConfigError } from "@movement-detection/shared/config";
import type { Middleware } from "koa";
import type { GatewayState } from "../state.js";
import { TRACE_RESPONSE_HEADER } from "./tracing.js";

/** `CORS_ALLOWED_ORIGINS` alone: every origin may call (the default, see docs/security.md). */
export const ANY_ORIGIN = "*";

const EXPOSED_HEADERS = ["X-Request-Id", "ETag", "Retry-After", "Allow", TRACE_RESPONSE_HEADER];
const ALLOWED_HEADERS = [
  "Authorization",
  "Content-Type",
  "If-Match",
  "Idempotency-Key",
  "X-Request-Id",
  "traceparent",
  "tracestate",
];

/**
 * Which web pages' scripts may read the API's answers: `Access-Control-Allow-Origin` names the
 * caller's origin when `allowed` holds it (or is `*`), and is absent otherwise, so that the
 * browser keeps the answer from the page. No `Access-Control-Allow-Credentials`: the API takes
 * bearer tokens only, never cookies, so a page can send no credential it does not already hold.
 * This is not access control: clients other than browsers ignore it. Every answer varies by
 * Origin (caches keep one per origin).
 */
export function corsPolicy(allowed: readonly string[]): Middleware<GatewayState> {
  const origins = new Set(allowed);
  return cors({
    origin: (ctx) => allowedOrigin(origins, ctx.get("origin")),
    exposeHeaders: EXPOSED_HEADERS,
    allowHeaders: ALLOWED_HEADERS,
    allowMethods: ["GET", "HEAD", "PUT", "POST", "DELETE", "OPTIONS"],
    maxAge: 600,
  });
}

/** The `Access-Control-Allow-Origin` for a request from `origin`: itself, or "" (none). */
export function allowedOrigin(allowed: ReadonlySet<string>, origin: string): string {
  if (origin === "") return "";
  return allowed.has(ANY_ORIGIN) || allowed.has(origin) ? origin : "";
}

/**
 * The entries of `CORS_ALLOWED_ORIGINS` as browsers write an Origin header (lower-case scheme and
 * host, no default port), or a ConfigError naming the first that cannot match one: a path or a
 * trailing slash, a pattern, `null`, another scheme, credentials. `*` stands alone.
 */
export function parseCorsOrigins(entries: readonly string[], variable: string): string[] {
  if (entries.includes(ANY_ORIGIN)) {
    if (entries.length > 1) {
      throw new ConfigError(variable, `is either * alone or a list of origins, got "${entries}"`);
    }
    return [ANY_ORIGIN];
  }
  return [...new Set(entries.map((entry) => parseOrigin(entry, variable)))];
}

/** scheme://host[:port], nothing before the host and nothing after the port. */
const ORIGIN_SHAPE = /^https?:\/\/[^/\\?#@*%\s]+$/i;

function parseOrigin(entry: string, variable: string): string {
  const problem = (why: string) =>
    new ConfigError(variable, `entry "${entry}" ${why}: write scheme://host[:port]`);
  if (entry === "null") {
    throw problem("is the origin of sandboxed frames and file: pages, which any page can take");
  }
  if (entry.includes("*")) throw problem("is a pattern; list each origin");
  if (!/^https?:\/\//i.test(entry)) throw problem("is not an http:// or https:// origin");
  if (!ORIGIN_SHAPE.test(entry) || !URL.canParse(entry)) {
    throw problem("is not an origin (no path, not even a trailing slash, no query, no user)");
  }
  return new URL(entry).origin;
}
