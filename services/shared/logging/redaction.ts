import type { LoggerOptions } from "pino";

/**
 * Secrets never reach a log line. Two nets, both in every logger of the system:
 * 1. fields whose name says "secret" are replaced wherever a line puts them (top level, one
 *    object down, and `req.headers`), whatever their value looks like;
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

const SECRET_FIELD_NAMES: ReadonlySet<string> = new Set(SECRET_FIELDS);

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

/**
 * `fields` (a log line's own fields) with the value of every secret-named field replaced: at the
 * top level, one object down, and in `req.headers`. The caller's objects are never changed: what
 * changes is copied. An error with a secret-named field keeps its type, message and stack.
 *
 * Why not pino's `redact` paths: the same rule cost about 18 µs per line there (20 against 2 µs
 * for the whole line, @pinojs/redact with wildcard paths); this costs a key lookup per field.
 */
export function redactFields(fields: Record<string, unknown>): Record<string, unknown> {
  return redactLevel(fields, 2, true);
}

function redactLevel(
  object: Record<string, unknown>,
  depth: number,
  top: boolean,
): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    const value = object[key];
    let replaced = value;
    if (SECRET_FIELD_NAMES.has(key)) {
      replaced = REDACTED;
    } else if (depth > 1 && isObject(value)) {
      // One object down from the top; `req.headers` one more (a request logged whole).
      const below = top && key === "req" ? 2 : 1;
      replaced = redactLevel(value, below, false);
    }
    if (replaced !== value) {
      copy ??= copyOf(object);
      copy[key] = replaced;
    }
  }
  return copy ?? object;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function copyOf(object: Record<string, unknown>): Record<string, unknown> {
  if (object instanceof Error) {
    // Same prototype (pino's error serializer names the type from it), message and stack copied
    // (own but not enumerable on an error).
    const copy = Object.create(Object.getPrototypeOf(object)) as Error;
    copy.message = object.message;
    copy.stack = object.stack;
    return Object.assign(copy, object) as unknown as Record<string, unknown>;
  }
  return { ...object };
}

/** The pino options every logger of the system spreads in (merge `formatters` when adding one). */
export function secretRedaction(): Pick<LoggerOptions, "formatters" | "hooks"> {
  return {
    formatters: { log: redactFields },
    hooks: { streamWrite: redactSecrets },
  };
}
