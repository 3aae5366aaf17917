import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

/** What every log line written while serving one request should carry. */
export interface RequestContext {
  readonly requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

export const REQUEST_ID_HEADER = "x-request-id";

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's request id only when it cannot pollute logs or headers. */
export function acceptRequestId(candidate: string | null | undefined): string {
  return candidate && SANE_REQUEST_ID.test(candidate) ? candidate : randomUUID();
}
