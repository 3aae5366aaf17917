/**
 * The words for a failed connection, apart from the DOM helpers so that Node can test them: what
 * happened and what to do, after a status line's "Not saved: ", "Run failed: " and the like.
 */
import { MdsNetworkError, StreamClientError } from "@movement-detection/sdk";

export const UNREACHABLE = "cannot reach the service. Check your connection and try again.";
export const STREAM_LOST =
  "the connection to the service was lost and could not be restored. Check your connection and try again.";

/** The stream's close codes for a connection that went away without a word (not a refusal). */
const CONNECTION_LOST = [1005, 1006];

/**
 * The text for an error of the connection (a request without an answer, a stream closed), or
 * undefined for any other error.
 */
export function connectionText(error: unknown): string | undefined {
  // The SDK has already retried what was safe to retry: what is left is for the user to act on,
  // and a browser's "Failed to fetch" does not say so.
  if (error instanceof MdsNetworkError || isFetchFailure(error)) return UNREACHABLE;
  if (error instanceof StreamClientError)
    return CONNECTION_LOST.includes(error.closeCode)
      ? STREAM_LOST
      : `the stream closed (${error.closeCode}): ${error.message}`;
  return undefined;
}

/** A fetch that got no answer: Chromium says "Failed to fetch", Firefox "NetworkError…", Safari "Load failed". */
function isFetchFailure(error: unknown): boolean {
  return error instanceof TypeError && /fetch|network|load failed/i.test(error.message);
}
