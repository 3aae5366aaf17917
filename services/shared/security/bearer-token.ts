/**
 * RFC 6750 §2.1: `Bearer`, one or more spaces, a b64token. The scheme is case-insensitive (RFC 9110
 * §11.1); trailing spaces are tolerated as header values may carry them. Anything else, a comma, a
 * second word or a tab included, is not a bearer credential: no caller gets to pass a token the
 * verifier would then have to reject for its shape.
 */
const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

/** The token of an `Authorization: Bearer <token>` header, or undefined when it is not one. */
export function bearerToken(header: string | null | undefined): string | undefined {
  return BEARER.exec(header ?? "")?.[1];
}
