/**
 * MongoDB-style server errors. Every failure a command can hit is one of these, so the
 * reply always carries `ok: 0`, a numeric `code`, its `codeName` and a message that names
 * what went wrong (the official driver maps these to `MongoServerError`).
 */

export const ErrorCode = {
  InternalError: 1,
  BadValue: 2,
  FailedToParse: 9,
  TypeMismatch: 14,
  InvalidLength: 16,
  IllegalOperation: 20,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  PathNotViable: 28,
  CursorNotFound: 43,
  NamespaceExists: 48,
  MaxTimeMSExpired: 50,
  CommandNotFound: 59,
  ImmutableField: 66,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  UnsatisfiableWriteConcern: 100,
  WriteConflict: 112,
  CommandNotSupported: 115,
  CannotIndexParallelArrays: 171,
  NoSuchTransaction: 251,
  TransactionCommitted: 256,
  OperationNotSupportedInTransaction: 263,
  IndexAlreadyExists: 68,
  ConflictingUpdateOperators: 40,
  CannotCreateIndex: 67,
  InvalidIndexSpecificationOption: 197,
  InvalidUUID: 207,
  TransactionTooOld: 225,
  Unauthorized: 13,
  ProtocolError: 17,
  AuthenticationFailed: 18,
  MechanismUnavailable: 334,
  BSONObjectTooLarge: 10334,
  InvalidIdField: 53,
  DuplicateKey: 11000,
  Location17419: 17419,
  Location40323: 40323,
  Location40324: 40324,
  Location40415: 40415,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;

export class MongoCommandError extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly errorLabels: string[];
  readonly extra: Record<string, unknown>;

  constructor(
    codeName: ErrorCodeName,
    message: string,
    options: { labels?: string[]; extra?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.code = ErrorCode[codeName];
    this.codeName = codeName.startsWith("Location") ? `Location${this.code}` : codeName;
    this.errorLabels = options.labels ?? [];
    this.extra = options.extra ?? {};
  }

  toReply(): Record<string, unknown> {
    const reply: Record<string, unknown> = {
      ok: 0,
      errmsg: this.message,
      code: this.code,
      codeName: this.codeName,
      ...this.extra,
    };
    if (this.errorLabels.length > 0) reply.errorLabels = this.errorLabels;
    return reply;
  }
}

export function badValue(message: string): MongoCommandError {
  return new MongoCommandError("BadValue", message);
}

export function writeConflict(message: string): MongoCommandError {
  return new MongoCommandError("WriteConflict", message, {
    labels: ["TransientTransactionError"],
  });
}

/**
 * Turns anything thrown while running a command into a MongoCommandError. mingo signals
 * unsupported or malformed operators with plain errors; those become BadValue carrying
 * mingo's message (which names the operator), never a silent success.
 */
export function toCommandError(error: unknown): MongoCommandError {
  if (error instanceof MongoCommandError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/unknown|unsupported|not supported|invalid|must be|cannot|expected/i.test(message)) {
    return new MongoCommandError("BadValue", message);
  }
  return new MongoCommandError("InternalError", message);
}
