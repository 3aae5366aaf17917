import type { Logger } from "./logger.js";

/**
 * Node's own warnings (deprecations, listener leaks, experimental features) go through the
 * process's logger, as a JSON line at warn masked like every other, instead of to stderr as they
 * are: a warning can quote what caused it, and that can be a client's. `url.parse()` names a
 * request target it cannot parse in DEP0170, key and all (`GET http://[::1/x%6Dsk_…`).
 *
 * Node prints warnings from a `warning` listener of its own; it is replaced, with any other.
 */
export function logProcessWarnings(logger: Pick<Logger, "warn">): void {
  process.removeAllListeners("warning");
  process.on("warning", (warning) => {
    const { name, message } = warning;
    const code = (warning as { code?: unknown }).code;
    logger.warn({ warning: { name, code, message } }, "process warning");
  });
}
