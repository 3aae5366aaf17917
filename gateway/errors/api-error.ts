import type { JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { errorInfo } from "../../services/shared/errors/service-error.js";
import {
  API_ERROR_CODES,
  type ApiErrorCode,
  CODE_FROM_GRPC,
  CODE_FROM_REASON,
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
    readonly reason: string,
    message: string,
    readonly details: JsonObject = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.status = API_ERROR_CODES[code].status;
    this.retryable = API_ERROR_CODES[code].retryable;
  }

  /** Translates an error raised by a call to an internal service. */
  static fromServiceError(error: unknown): ApiError {
    const info = errorInfo(error);
    const reason = info.reason ?? defaultReason(info.code);
    const code = CODE_FROM_REASON[reason] ?? CODE_FROM_GRPC[info.code];
    if (code === "internal") {
      return new ApiError("internal", "INTERNAL", "internal error");
    }
    if (code === "unavailable" && !info.reason) {
      return new ApiError(
        "unavailable",
        "DEPENDENCY_UNAVAILABLE",
        "a backing service is unavailable",
      );
    }
    const headers: Record<string, string> = {};
    const retryAfter = info.metadata.retry_after_seconds;
    if (typeof retryAfter === "number") headers["retry-after"] = String(Math.ceil(retryAfter));
    return new ApiError(code, reason, info.message, info.metadata, headers);
  }
}

function defaultReason(code: Code): string {
  switch (code) {
    case Code.Unavailable:
    case Code.Canceled:
      return "DEPENDENCY_UNAVAILABLE";
    case Code.DeadlineExceeded:
      return "DEADLINE_EXCEEDED";
    default:
      return Code[code].replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
  }
}

export function isConnectError(error: unknown): error is ConnectError {
  return error instanceof ConnectError;
}
