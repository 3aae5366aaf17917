import { Code, ConnectError } from "@connectrpc/connect";
import { Reason } from "../errors/reasons.js";
import { serviceError } from "../errors/service-error.js";
import { classifyMongoError, isDuplicateKey } from "./mongo-failure.js";
import { storeObserver } from "./store-timing.js";

/**
 * The one translation of database failures into the service's errors, for every store:
 * - unavailable -> UNAVAILABLE `DEPENDENCY_UNAVAILABLE` (retryable; never "not found");
 * - write conflict -> ABORTED `WRITE_CONFLICT` (retryable: nothing was applied);
 * - a duplicate key that no store method turned into a result -> ALREADY_EXISTS;
 * - anything else is returned unchanged and ends as INTERNAL, logged with its cause.
 */
export function translateStoreError(error: unknown): unknown {
  if (error instanceof ConnectError) return error;
  switch (classifyMongoError(error)) {
    case "unavailable":
      return withCause(
        serviceError(Code.Unavailable, Reason.dependencyUnavailable, "the database is unavailable"),
        error,
      );
    case "write_conflict":
      return withCause(
        serviceError(Code.Aborted, Reason.writeConflict, "a concurrent write won; retry", {
          retry_after_seconds: 1,
        }),
        error,
      );
    case "duplicate_key":
      return withCause(
        serviceError(Code.AlreadyExists, Reason.alreadyExists, "the record already exists"),
        error,
      );
    default:
      return error;
  }
}

function withCause(translated: ConnectError, cause: unknown): ConnectError {
  translated.cause = cause;
  return translated;
}

/**
 * Wraps every method of a store so that each failure it lets out is translated, and the time
 * each asynchronous one takes is observed under the store's name and the method's (the
 * `store_operation_duration_seconds` metric): a store's factory returns `guardStore("name", {...})`,
 * and no caller ever sees a raw driver error.
 */
export function guardStore<T extends object>(storeName: string, store: T): T {
  const guarded: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(store)) {
    guarded[name] =
      typeof member === "function"
        ? (...args: unknown[]) => {
            const started = performance.now();
            try {
              const result = member.apply(store, args);
              if (!(result instanceof Promise)) return result;
              const observe = storeObserver();
              return observe
                ? result.then(
                    (value: unknown) => {
                      observe(storeName, name, (performance.now() - started) / 1000, "ok");
                      return value;
                    },
                    (error: unknown) => {
                      observe(storeName, name, (performance.now() - started) / 1000, "error");
                      throw translateStoreError(error);
                    },
                  )
                : result.catch((error: unknown) => {
                    throw translateStoreError(error);
                  });
            } catch (error) {
              throw translateStoreError(error);
            }
          }
        : member;
  }
  return guarded as T;
}

/** An insert into a unique index as a typed result: a duplicate is an answer, not an error. */
export type InsertOutcome = "inserted" | "duplicate";

export async function insertUnique(insert: () => Promise<unknown>): Promise<InsertOutcome> {
  try {
    await insert();
    return "inserted";
  } catch (error) {
    if (isDuplicateKey(error)) return "duplicate";
    throw error;
  }
}
