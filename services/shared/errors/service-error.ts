import { create, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorDetailSchema } from "@movement-detection/proto/common/v1";
import { jsonBytes, leadingItemsWithin } from "../text/json-budget.js";
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
    metadata: boundedMetadata(metadata),
  });
  return new ConnectError(message, code, undefined, [{ desc: ErrorDetailSchema, value: detail }]);
}

/**
 * The most bytes of JSON an error's metadata keeps. To a gRPC client (grpcurl, grpc-js) it travels
 * in the answer's trailers (grpc-status-details-bin, base64), and HTTP/2 refuses a header block
 * much past 64 KiB: the caller then gets a broken stream, an internal error, instead of this one.
 * (Our own workloads call each other with the Connect protocol, the error in the body; the bound
 * is the same for every caller.)
 */
export const ERROR_METADATA_MAX_BYTES = 16 * 1024;

/**
 * The metadata, or when it is too large to travel, the same with its lists cut at their end
 * (`<list>_omitted` counts what a list lost: the first issues of a draft say more than none),
 * then, if that is not enough, without its largest members (`omitted_fields` names them).
 */
export function boundedMetadata(metadata: JsonObject): JsonObject {
  if (jsonBytes(metadata) <= ERROR_METADATA_MAX_BYTES) return metadata;
  const kept: JsonObject = {};
  const lists: [string, JsonValue[]][] = [];
  for (const [key, value] of Object.entries(metadata)) {
    if (Array.isArray(value)) lists.push([key, value]);
    else kept[key] = value;
  }
  // Room for the lists, and for an `_omitted` count and an `omitted_fields` entry per member.
  let room = ERROR_METADATA_MAX_BYTES - jsonBytes(kept) - 64 * (lists.length + 1);
  for (const [key, list] of lists) {
    // The key, its quotes and colon, the brackets and the comma after the member.
    const wrapping = jsonBytes(key) + 4;
    const { count, bytes } = leadingItemsWithin(list, room - wrapping);
    kept[key] = list.slice(0, count);
    if (count < list.length) kept[`${key}_omitted`] = list.length - count;
    room -= bytes + wrapping;
  }
  const omitted: string[] = [];
  while (jsonBytes(kept) > ERROR_METADATA_MAX_BYTES - 64 * (omitted.length + 1)) {
    const [largest] = Object.keys(kept).sort((a, b) => jsonBytes(kept[b]) - jsonBytes(kept[a]));
    omitted.push(largest);
    delete kept[largest];
  }
  if (omitted.length > 0) kept.omitted_fields = omitted;
  return kept;
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
