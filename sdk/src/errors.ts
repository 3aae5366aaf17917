import type { ErrorEnvelope } from "./generated/api.js";

type Details = ErrorEnvelope["error"]["details"];

/**
 * A non-2xx answer of the API, with the envelope's fields: branch on `reason` (stable,
 * UPPER_SNAKE), not on `message`. `retryable` says whether the same request may succeed later.
 */
export class MdsApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly reason: string;
  readonly retryable: boolean;
  readonly details: Details;
  /** The response's X-Request-Id: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** Seconds the server asked to wait before retrying (Retry-After), when it said. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, envelope: ErrorEnvelope | undefined, headers: Headers) {
    const error = envelope?.error;
    super(error?.message ?? `HTTP ${status}`);
    this.name = "MdsApiError";
    this.status = status;
    this.code = error?.code ?? (status >= 500 ? "unavailable" : "unknown");
    this.reason = error?.details.reason ?? (status >= 500 ? "DEPENDENCY_UNAVAILABLE" : "UNKNOWN");
    // Without an envelope (a proxy's 502 page), 502/503/504 are worth another try.
    this.retryable = error?.retryable ?? [502, 503, 504].includes(status);
    this.details = error?.details ?? { reason: this.reason, request_id: "" };
    this.requestId = headers.get("x-request-id") ?? error?.details.request_id;
    const retryAfter = Number(headers.get("retry-after"));
    this.retryAfterSeconds =
      headers.has("retry-after") && Number.isFinite(retryAfter) ? retryAfter : undefined;
  }
}

/** The connection failed before any answer (DNS, refused, reset, a timeout of yours). */
export class MdsNetworkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MdsNetworkError";
  }
}
