/**
 * Free ports for an ephemeral start, chosen before anything starts (services call each other, so
 * every address is known up front) and bound seconds later by the services.
 *
 * Why not port 0 and release it: that port comes from the kernel's ephemeral range, the range it
 * also takes the source port of every outgoing connection from. In the seconds between the choice
 * and the bind, the system's own connections (to the store, between services) can take it, and
 * the start fails with EADDRINUSE. Ports outside that range are never handed out that way.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** Linux's default when /proc cannot be read (other systems choose elsewhere: still fine). */
const DEFAULT_EPHEMERAL_RANGE: readonly [number, number] = [32768, 60999];
/** Below this, ports are privileged or well known. */
const LOWEST = 10_000;
const ATTEMPTS = 64;

/** The kernel's range for outgoing connections' source ports. */
export function ephemeralRange(
  read: () => string = () => readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8"),
): readonly [number, number] {
  try {
    const [low, high] = read().trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && 0 < low && low <= high && high < 65536) {
      return [low, high];
    }
  } catch {
    // not Linux, or no /proc: the default
  }
  return DEFAULT_EPHEMERAL_RANGE;
}

/** Ports from LOWEST to 65535 outside `range`, as [from, to] spans. */
export function candidateSpans(range: readonly [number, number]): [number, number][] {
  const spans: [number, number][] = [];
  if (range[0] - 1 >= LOWEST) spans.push([LOWEST, range[0] - 1]);
  if (range[1] + 1 <= 65535) spans.push([Math.max(range[1] + 1, LOWEST), 65535]);
  return spans;
}

function pick(spans: readonly [number, number][], random: () => number): number {
  const total = spans.reduce((sum, [from, to]) => sum + (to - from + 1), 0);
  let offset = Math.floor(random() * total);
  for (const [from, to] of spans) {
    if (offset <= to - from) return from + offset;
    offset -= to - from + 1;
  }
  return spans[0][0];
}

function canBind(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

function kernelPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A port free on `host` now, outside the kernel's ephemeral range and not in `taken`; the
 * kernel's choice (port 0) only if no such port can be bound.
 */
export async function freePort(
  options: { host?: string; taken?: ReadonlySet<number>; random?: () => number } = {},
): Promise<number> {
  const host = options.host ?? "127.0.0.1";
  const spans = candidateSpans(ephemeralRange());
  if (spans.length > 0) {
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const port = pick(spans, options.random ?? Math.random);
      if (options.taken?.has(port)) continue;
      if (await canBind(port, host)) return port;
    }
  }
  return kernelPort(host);
}
