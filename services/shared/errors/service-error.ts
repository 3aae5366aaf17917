import { create, type JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorDetailSchema } from "../../../proto/gen/common/v1/error_pb.js";
import { type ErrorReason, isErrorReason } from "./reasons.js";

export { Code, ConnectError };

/**
 * Throws-ready error for every service: a gRPC code plus the contract's stable reason
 * (e.g. MOVESPEC_NOT_FOUND) and structured metadata safe to show to the caller. The gateway turns
 * it into the public error envelope in one table (gateway/errors/).
 */
export function serviceError(
  code: Code,
  reason: ErrorReason,
  message: string,
  metadata: JsonObject = {},
): ConnectError {
  const detail = create(ErrorDetailSchema, {
    reason,
    metadata,
  });
  return new ConnectError(message, code, undefined, [{ desc: ErrorDetailSchema, value: detail }]);
}

export interface ErrorInfo {
  readonly code: Code;
  /** Undefined when the error carries none, or one outside the vocabulary. */
  readonly reason: ErrorReason | undefined;
  readonly message: string;
  readonly metadata: JsonObject;
}

/** Reads back what `serviceError` put in, from any error a client call raised. */
export function errorInfo(error: unknown): ErrorInfo {
  const connectError = ConnectError.from(error);
  const [detail] = connectError.findDetails(ErrorDetailSchema);
  return {
    code: connectError.code,
    reason: isErrorReason(detail?.reason) ? detail.reason : undefined,
    message: connectError.rawMessage,
    metadata: detail?.metadata ?? {},
  };
}
