import { type ErrorInfo, errorInfo } from "@movement-detection/shared/errors";

/** The service error a promise rejects with (code, reason, metadata); throws if it resolves. */
export async function failure(promise: Promise<unknown>): Promise<ErrorInfo> {
  try {
    await promise;
  } catch (error) {
    return errorInfo(error);
  }
  throw new Error("expected a failure");
}
