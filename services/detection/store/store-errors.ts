import { Reason } from "../../shared/errors/reasons.js";
import { Code, serviceError } from "../../shared/errors/service-error.js";

/** True for MongoDB's duplicate key error (11000). */
export function isDuplicateKey(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 11000;
}

/**
 * Runs one store operation; a database that does not answer becomes UNAVAILABLE (retryable), the
 * single place where driver failures are translated.
 */
export async function storeCall<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isDuplicateKey(error)) throw error;
    const name = (error as { name?: unknown } | null)?.name;
    if (typeof name === "string" && name.startsWith("Mongo")) {
      throw serviceError(
        Code.Unavailable,
        Reason.dependencyUnavailable,
        "the session store is unavailable",
      );
    }
    throw error;
  }
}
