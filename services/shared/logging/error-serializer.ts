import { Code, ConnectError } from "@connectrpc/connect";
import { pino } from "pino";

/**
 * `err` in log lines. A ConnectError as its code, message and stack: pino's own serializer also
 * wrote out its `details`, protobuf bytes as one JSON member per byte (3 KB a line), and its
 * empty metadata. Its cause (the driver's error, say) is kept, serialized the same way.
 */
export function serializeError(error: unknown): unknown {
  if (error instanceof ConnectError) {
    return {
      type: "ConnectError",
      code: Code[error.code],
      message: error.message,
      stack: error.stack,
      ...(error.cause !== undefined ? { cause: serializeError(error.cause) } : {}),
    };
  }
  return error instanceof Error ? pino.stdSerializers.err(error) : error;
}
