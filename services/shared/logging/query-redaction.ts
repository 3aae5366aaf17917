/**
 * Query parameters whose values are secrets (tokens, keys, passwords, signatures): an access
 * log line keeps their names and hides their values. Matched on the name, case-insensitively.
 */
const SECRET_PARAMETER =
  /token|secret|passw|api[-_]?key|^key$|^auth|authorization|signature|credential/i;

export const REDACTED = "[REDACTED]";

/**
 * The query string of a request URL (after `?`) as it may be logged: secret parameters' values
 * replaced, everything else as sent. Undefined when there is no query.
 */
export function redactedQuery(url: string): string | undefined {
  const at = url.indexOf("?");
  if (at < 0 || at === url.length - 1) return undefined;
  return url
    .slice(at + 1)
    .split("&")
    .map((pair) => {
      const equals = pair.indexOf("=");
      const rawName = equals < 0 ? pair : pair.slice(0, equals);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, " "));
      } catch {
        // A malformed escape: judge the name as written.
      }
      return equals >= 0 && SECRET_PARAMETER.test(name) ? `${rawName}=${REDACTED}` : pair;
    })
    .join("&");
}
