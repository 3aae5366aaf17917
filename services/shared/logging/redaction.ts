import type { LoggerOptions } from "pino";

/**
 * Secrets never reach a log line. Two nets, both in every logger of the system:
 * 1. pino's `redact`: fields whose name says "secret" are replaced wherever a line puts them
 *    (top level or one object down), whatever their value looks like;
 * 2. a pattern check of the finished line: anything shaped like a credential secret (`msk_`,
 *    `mss_`), a JWT, a PEM block or a password in a connection string is masked, whatever field
 *    (or message, or error text) carries it.
 * The development key is shown once on the launcher's terminal banner, never logged.
 */
const SECRET_FIELDS = [
  "api_key",
  "api_key_secret",
  "service_account_secret",
  "secret",
  "password",
  "pepper",
  "token",
  "access_token",
  "runtime_token",
  "authorization",
  "private_jwk",
  "sealed_private_jwk",
  "key_encryption_keys",
];

export const REDACT_PATHS: readonly string[] = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((field) => `*.${field}`),
  "headers.authorization",
  "req.headers.authorization",
];

export const REDACTED = "[redacted]";

const PATTERNS: readonly [RegExp, string][] = [
  [/\bms[ks]_[A-Za-z0-9_-]{16,}/g, `msk_${REDACTED}`],
  [/\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, `jwt:${REDACTED}`],
  [/-----BEGIN [A-Z0-9 ]+-----.*?-----END [A-Z0-9 ]+-----/gs, `pem:${REDACTED}`],
  [/(mongodb(?:\+srv)?:\/\/[^:/@\s"]+:)[^@\s"]+@/g, `$1${REDACTED}@`],
];

/** Quick test first: almost no line holds anything secret-shaped, and those pay nothing more. */
const SUSPECT = /ms[ks]_|eyJ|-----BEGIN|mongodb(?:\+srv)?:\/\/[^/@\s"]*:[^@\s"]*@/;

/** `text` with every secret-shaped substring masked. */
export function redactSecrets(text: string): string {
  if (!SUSPECT.test(text)) return text;
  let result = text;
  for (const [pattern, replacement] of PATTERNS) result = result.replace(pattern, replacement);
  return result;
}

/** The pino options every logger of the system spreads in. */
export function secretRedaction(): Pick<LoggerOptions, "redact" | "hooks"> {
  return {
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    hooks: { streamWrite: redactSecrets },
  };
}
