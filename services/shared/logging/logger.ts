import { type Logger, pino } from "pino";
import type { LogLevel } from "../config/service-config.js";
import { traceLogFields } from "../telemetry/trace-context.js";
import { serializeError } from "./error-serializer.js";
import { secretRedaction } from "./redaction.js";
import { currentRequestContext } from "./request-context.js";

export type { Logger };

/**
 * JSON lines on stdout. The request id and the trace id of the request being served (if any) are
 * added to every line, so one grep follows a request through the gateway and every service it
 * touched, and a trace leads to its log lines. Secrets are masked on the way out (redaction.ts).
 *
 * Each line is written at once, with one write(2) (pino.destination's default): pino's own
 * default hands every write to libuv's thread pool, and with one line per request (the gateway's
 * access log) that hand-off and its wake-ups cost more than the write itself, about 15 µs of CPU a
 * line on the 2-core machine (bench/auth/README.md). Nothing waits in a buffer to be lost if the
 * process dies; a stdout nobody reads blocks the process, as console.log does.
 */
export function createLogger(options: { service: string; level: LogLevel }): Logger {
  const redaction = secretRedaction();
  return pino(
    {
      ...redaction,
      level: options.level,
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: serializeError },
      formatters: { ...redaction.formatters, level: (label) => ({ level: label }) },
      mixin() {
        const context = currentRequestContext();
        const trace = traceLogFields();
        return context ? { request_id: context.requestId, ...trace } : trace;
      },
    },
    pino.destination({ dest: 1, sync: true }),
  );
}
