export { canonicalJson, fingerprintOf } from "./fingerprint.js";
export {
  assertValidIdempotencyKey,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  isValidIdempotencyKey,
} from "./idempotency-key.js";
export {
  type Attempt,
  createIdempotencyStore,
  type IdempotencyStore,
  type IdempotencyStoreOptions,
  type IdempotentRequest,
  type Outcome,
} from "./idempotency-store.js";
