export { fingerprintOf } from "./fingerprint.js";
export * from "./idempotency-key.js";
export {
  type Attempt,
  createIdempotencyStore,
  type IdempotencyStore,
  type IdempotencyStoreOptions,
  type IdempotentRequest,
  type Outcome,
} from "./idempotency-store.js";
