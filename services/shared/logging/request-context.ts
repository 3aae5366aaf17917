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
const LOWERCASE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Keeps a caller's request id only when it cannot pollute logs or headers, and cannot carry a
 * credential into them: the id is in every log line of the request, in every process it reaches.
 */
export function acceptRequestId(candidate: string | null | undefined): string {
  // The ids the gateway makes (every internal call carries one) pass both tests by construction.
  if (candidate && LOWERCASE_UUID.test(candidate)) return candidate;
  return candidate && SANE_REQUEST_ID.test(candidate) && !looksLikeCredential(candidate)
    ? candidate
    : randomUUID();
}

/** A credential's prefix, in any case (`MSK_<secret>` is the secret all the same). */
const CREDENTIAL_PREFIX = /ms[ks]_/i;

/**
 * The shortest run of base64url characters, mixing upper and lower case, taken for a secret's
 * body: a credential without its prefix is 43 (256 bits), a JWT's segments are longer. Ordinary
 * ids stay under it or are of one case: UUIDs and hex trace ids (lower case), ULIDs (upper case),
 * nanoids (21), KSUIDs (27).
 */
export const SECRET_RUN_LENGTH = 32;
const BASE64URL_RUN = /[A-Za-z0-9_-]+/g;

/** Whether a request id may be, or hold, a secret: a credential's prefix or a secret's body. */
export function looksLikeCredential(id: string): boolean {
  if (CREDENTIAL_PREFIX.test(id)) return true;
  for (const [run] of id.matchAll(BASE64URL_RUN)) {
    if (run.length >= SECRET_RUN_LENGTH && /[a-z]/.test(run) && /[A-Z]/.test(run)) return true;
  }
  return false;
}
