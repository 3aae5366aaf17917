import type { CallOptions, HandlerContext } from "@connectrpc/connect";
import { createContextKey } from "@connectrpc/connect";
import type { Workload } from "./workloads.js";

/**
 * The end user an internal call acts for, as proven by the access token the call carried
 * (verified by the service itself, see authorization-interceptor.ts). Never read from a request
 * message: a caller can write anything there. Anonymous callers (public reads) have empty ids.
 */
export interface Caller {
  readonly organizationId: string;
  readonly projectId: string;
  readonly scopes: readonly string[];
  /** The API key or service account that minted the token (audit fields). */
  readonly credentialId: string;
  /** The verified access token itself, to forward on calls made for this user. */
  readonly accessToken: string;
}

export const ANONYMOUS: Caller = Object.freeze({
  organizationId: "",
  projectId: "",
  scopes: [],
  credentialId: "",
  accessToken: "",
});

/** Set by the interceptor for every call it lets through. */
export const CALLER_KEY = createContextKey<Caller>(ANONYMOUS, { description: "verified caller" });
/** The workload that called (its certificate's SPIFFE ID, or asserted under h2c). */
export const PEER_WORKLOAD_KEY = createContextKey<Workload | undefined>(undefined, {
  description: "peer workload",
});

/** The verified caller of the call being handled. */
export function callerOf(context: HandlerContext): Caller {
  return context.values.get(CALLER_KEY);
}

export function peerWorkloadOf(context: HandlerContext): Workload | undefined {
  return context.values.get(PEER_WORKLOAD_KEY);
}

/** A request plus the verified caller, the shape the operations take. */
export type Called<T> = T & { readonly caller: Caller };

export function withCaller<T extends object>(request: T, context: HandlerContext): Called<T> {
  return Object.assign(Object.create(Object.getPrototypeOf(request)), request, {
    caller: callerOf(context),
  });
}

/** The header the user's access token travels in on internal calls (as on the public API). */
export const USER_TOKEN_HEADER = "authorization";

/**
 * Call options that make an internal call on behalf of `caller` (its token in `authorization`);
 * nothing for an anonymous caller.
 */
export function onBehalfOf(caller: Pick<Caller, "accessToken"> | undefined): CallOptions {
  return caller?.accessToken
    ? { headers: { [USER_TOKEN_HEADER]: `Bearer ${caller.accessToken}` } }
    : {};
}
