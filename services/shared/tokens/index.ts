export { createAuthServiceVerifier, createSettingsVerifier } from "./auth-service-verifier.js";
export type { AccessClaims, CredentialKind, RuntimeClaims } from "./claims.js";
export type { Scope } from "./scopes.js";
export * from "./token-config.js";
export { KeySetUnavailableError, TokenError, type TokenErrorReason } from "./token-error.js";
export {
  createTokenVerifier,
  type TokenVerifier,
  type TokenVerifierOptions,
} from "./token-verifier.js";
