import {
  MongoClientClosedError,
  MongoError,
  MongoErrorLabel,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerSelectionError,
  MongoStalePrimaryError,
  MongoTopologyClosedError,
} from "mongodb";

/**
 * What a MongoDB driver error means to a store, in four words:
 * - `duplicate_key`: a unique index refused the write (E11000); the caller decides what that means.
 * - `write_conflict`: a concurrent write won (112, or a TransientTransactionError); nothing was
 *   applied, so the request can be retried as a whole.
 * - `unavailable`: the database cannot answer now (network, timeout, server selection, not
 *   primary, pool cleared, shutting down); retrying later may succeed.
 * - `unknown`: anything else: a bug or a bad request to the database, never retryable.
 */
export type MongoFailure = "duplicate_key" | "write_conflict" | "unavailable" | "unknown";

const DUPLICATE_KEY = 11000;
const WRITE_CONFLICT = 112;

/**
 * Server error codes that mean "not now" rather than "never": the driver's retryable set
 * (not primary, shutting down, host unreachable, network timeout, ...) plus time limits.
 */
const TRANSIENT_SERVER_CODES: ReadonlySet<number> = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  50, // MaxTimeMSExpired
  89, // NetworkTimeout
  91, // ShutdownInProgress
  133, // FailedToSatisfyReadPreference
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  202, // NetworkInterfaceExceededTimeLimit
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Driver errors without a public class that still mean the database is out of reach. */
const TRANSIENT_ERROR_NAMES: ReadonlySet<string> = new Set([
  "MongoPoolClosedError",
  "MongoWaitQueueTimeoutError",
]);

const TRANSIENT_LABELS = [
  MongoErrorLabel.RetryableWriteError,
  MongoErrorLabel.ResetPool,
  MongoErrorLabel.SystemOverloadedError,
] as const;

/**
 * Socket errors (Node's system error codes) the driver can let out unwrapped: driver 7.9 rethrows
 * the socket's own error when a command is written to a connection the database has just closed
 * (`EPIPE`, "This socket has been ended by the other party"), instead of a MongoNetworkError.
 */
const SOCKET_ERROR_CODES: ReadonlySet<string> = new Set([
  "EPIPE",
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTCONN",
  "ERR_SOCKET_CLOSED",
  "ERR_STREAM_DESTROYED",
  "ERR_STREAM_WRITE_AFTER_END",
]);

export function classifyMongoError(error: unknown): MongoFailure {
  if (isSocketError(error)) return "unavailable";
  if (!(error instanceof MongoError)) return "unknown";
  if (error.code === DUPLICATE_KEY) return "duplicate_key";
  if (
    error.code === WRITE_CONFLICT ||
    error.hasErrorLabel(MongoErrorLabel.TransientTransactionError)
  ) {
    return "write_conflict";
  }
  if (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoClientClosedError ||
    error instanceof MongoServerClosedError ||
    error instanceof MongoOperationTimeoutError ||
    error instanceof MongoStalePrimaryError ||
    TRANSIENT_ERROR_NAMES.has(error.name) ||
    TRANSIENT_LABELS.some((label) => error.hasErrorLabel(label)) ||
    (typeof error.code === "number" && TRANSIENT_SERVER_CODES.has(error.code))
  ) {
    return "unavailable";
  }
  return "unknown";
}

function isSocketError(error: unknown): boolean {
  if (!(error instanceof Error) || error instanceof MongoError) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === "string" && SOCKET_ERROR_CODES.has(code);
}

/** True for a unique-index violation (E11000). */
export function isDuplicateKey(error: unknown): boolean {
  return classifyMongoError(error) === "duplicate_key";
}
