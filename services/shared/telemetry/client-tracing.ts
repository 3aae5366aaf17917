import type { Interceptor } from "@connectrpc/connect";

/**
 * The client-span interceptor of this process's tracing, while tracing runs (startTracing sets
 * it, its shutdown clears it). Every internal transport asks for it on each call
 * (security/internal-transport.ts), so a process that never starts tracing (the admin tool)
 * loads no OpenTelemetry code for it, and with tracing off no tracing code runs.
 */
let active: Interceptor | undefined;

export function setClientTracing(interceptor: Interceptor | undefined): void {
  active = interceptor;
}

/** `next` wrapped in a client span (the W3C context sent along) while tracing runs; else `next`. */
export const clientTracing: Interceptor = (next) => (active ? active(next) : next);
