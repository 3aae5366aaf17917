import { STATUS_CODES } from "node:http";
import type { ErrorReason } from "@movement-detection/shared/errors";
import { ApiError } from "./api-error.js";
import type { ApiErrorCode } from "./error-codes.js";

export interface RawErrorOptions {
  readonly code: ApiErrorCode;
  readonly reason: ErrorReason;
  readonly message: string;
  readonly requestId: string;
  /** The trace the refusal belongs to, when there is one. */
  readonly traceId?: string;
  /** Only where HTTP itself names a status the code's own does not cover (431). */
  readonly status?: number;
  /** Headers a protocol asks for beside the error (a refused websocket version names its own). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A complete HTTP/1.1 error response with the contract's envelope, for what Koa never sees: a
 * request Node could not parse, a refused websocket upgrade. The connection closes after it.
 */
export function rawErrorResponse(options: RawErrorOptions): string {
  const error = new ApiError(options.code, options.reason, options.message);
  const status = options.status ?? error.status;
  const body = JSON.stringify(error.envelope(options.requestId, options.traceId));
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${options.requestId}`,
    ...Object.entries(options.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    "Cache-Control: no-store",
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}
