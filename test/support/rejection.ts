import { type ErrorInfo, errorInfo } from "@movement-detection/shared/errors";

/** What a call that must fail said (its code, reason, metadata); throws if it succeeded. */
export async function rejection(promise: Promise<unknown>): Promise<ErrorInfo> {
  try {
    await promise;
  } catch (error) {
    return errorInfo(error);
  }
  throw new Error("expected the call to fail");
}
