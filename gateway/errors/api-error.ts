import type { JsonObject } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import type { ErrorReason } from "@movement-detection/shared/errors";
import { errorInfo, Reason } from "@movement-detection/shared/errors";
import {
  API_ERROR_CODES,
  type ApiErrorCode,
  CODE_FROM_GRPC,
  CODE_FROM_REASON,
  REASON_FROM_CODE,
} from "./error-codes.js";

/**
 * An error the gateway answers with the contract's envelope. Anything else that reaches the error
 * middleware is a bug and becomes a bare 500 `internal` with no detail.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly retryable: boolean;

  constructor(
    readonly code: ApiErrorCode,
    readonly reason: ErrorReason,
    message: string,
    readonly details: JsonObject = {},
    readonly headers: Readonly<Record<string, string>> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ApiError";
    this.status = API_ERROR_CODES[code].status;
    this.retryable = API_ERROR_CODES[code].retryable;
  }

  /**
   * The contract's envelope for this error (ErrorEnvelope in services/shared/api): the one body of
   * every error the gateway answers, through Koa or raw on a socket. `details` carries the request
   * id and, when there is one, the trace id; they and the reason override any detail of that name.
   */
  envelope(requestId: string, traceId?: string) {
    return {
      error: {
        code: this.code,
        message: this.message,
        retryable: this.retryable,
        details: {
          ...this.details,
          reason: this.reason,
          request_id: requestId,
          ...(traceId ? { trace_id: traceId } : {}),
        },
      },
    };
  }

  /** The bare 500: nothing about the cause reaches the client (the middleware logs it). */
  static internal(cause?: unknown): ApiError {
    return new ApiError("internal", Reason.internal, "internal error", {}, {}, { cause });
  }

  /**
   * Translates an error raised by a call to an internal service: its reason decides the public
   * code (CODE_FROM_REASON), else its gRPC code does (CODE_FROM_GRPC).
   */
  static fromServiceError(error: ConnectError): ApiError {
    const info = errorInfo(error);
    const code = info.reason ? CODE_FROM_REASON[info.reason] : CODE_FROM_GRPC[info.code];
    if (code === "internal") return ApiError.internal(error);
    if (code === "unavailable" && !info.reason) {
      return new ApiError(
        "unavailable",
        Reason.dependencyUnavailable,
        "a backing service is unavailable",
        {},
        {},
        { cause: error },
      );
    }
    const headers: Record<string, string> = {};
    const retryAfter = info.metadata.retry_after_seconds;
    if (typeof retryAfter === "number") headers["retry-after"] = String(Math.ceil(retryAfter));
    return new ApiError(
      code,
      info.reason ?? REASON_FROM_CODE[code],
      info.message,
      info.metadata,
      headers,
      { cause: error },
    );
  }

  /** Any error to the envelope's: ours as is, a service's translated, anything else a bare 500. */
  static from(error: unknown): ApiError {
    if (error instanceof ApiError) return error;
    if (error instanceof ConnectError) return ApiError.fromServiceError(error);
    return ApiError.internal(error);
  }
}
