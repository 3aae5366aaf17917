export { createAuthServiceVerifier, createSettingsVerifier } from "./auth-service-verifier.js";
export * from "./claims.js";
export * from "./scopes.js";
export * from "./token-config.js";
export { KeySetUnavailableError, TokenError, type TokenErrorReason } from "./token-error.js";
export {
  createTokenVerifier,
  type TokenVerifier,
  type TokenVerifierOptions,
} from "./token-verifier.js";
