import type { Reason } from "../errors/reasons.js";

/**
 * Why a token was refused. Stable strings callers can switch on, equal to the public API's
 * `details.reason` (401 unauthenticated).
 */
export type TokenErrorReason = typeof Reason.tokenInvalid | typeof Reason.tokenExpired;

export class TokenError extends Error {
  constructor(
    readonly reason: TokenErrorReason,
    message: string,
  ) {
    super(message);
    this.name = "TokenError";
  }
}

/**
 * The verifier could not learn the keys (the auth service did not answer): not the token's fault,
 * so callers answer 503 rather than 401.
 */
export class KeySetUnavailableError extends Error {
  constructor(cause: unknown) {
    super("the token signing keys could not be fetched", { cause });
    this.name = "KeySetUnavailableError";
  }
}
