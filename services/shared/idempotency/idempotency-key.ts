import { Reason } from "../errors/reasons.js";
import { Code, serviceError } from "../errors/service-error.js";

/** The contract's limit on an Idempotency-Key header. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/** 1..255 printable ASCII characters: what a header can carry without surprises. */
export function isValidIdempotencyKey(key: string): boolean {
  return key.length >= 1 && key.length <= IDEMPOTENCY_KEY_MAX_LENGTH && PRINTABLE_ASCII.test(key);
}

/** INVALID_ARGUMENT FIELD_INVALID (field `Idempotency-Key`) unless the key is valid. */
export function assertValidIdempotencyKey(key: string): void {
  if (!isValidIdempotencyKey(key)) {
    throw serviceError(
      Code.InvalidArgument,
      Reason.fieldInvalid,
      `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters`,
      { field: "Idempotency-Key", max_length: IDEMPOTENCY_KEY_MAX_LENGTH },
    );
  }
}
