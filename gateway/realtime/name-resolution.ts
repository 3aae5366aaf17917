import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { Logger } from "@movement-detection/shared/logging";

/**
 * Detection replicas behind one name (a Kubernetes headless Service: one address per pod) are
 * reached address by address, for streams (stream-replicas.ts) and for calls
 * (routes/detection-replicas.ts) alike: what a name is, how it is resolved and how often.
 */

/** Every address a host name resolves to (A and AAAA). */
export type ResolveAddresses = (host: string) => Promise<string[]>;

export const resolveWithDns: ResolveAddresses = async (host) =>
  (await lookup(host, { all: true })).map((entry) => entry.address);

/** How often a name is resolved again (pods come and go); and at once after a failure. */
const RESOLVE_EVERY_MS = 10_000;
const RETRY_RESOLVE_MS = 1000;

/** The host of a URL, without the brackets of an IPv6 address. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[(.*)\]$/, "$1");
  } catch {
    return url;
  }
}

/** A host to resolve: not an address, and not localhost (this machine's, one replica). */
export function isName(host: string): boolean {
  return isIP(host) === 0 && host !== "localhost";
}

/** `url` with its host replaced by `address` (bracketed when IPv6). */
export function urlAt(url: string, address: string): string {
  const parsed = new URL(url);
  parsed.hostname = isIP(address) === 6 ? `[${address}]` : address;
  return parsed.toString().replace(/\/$/, "");
}

/** What a configured URL keeps of its name's resolution. */
export interface ResolvedName {
  readonly url: string;
  /** When the name was last resolved (-Infinity: resolve before the next use). */
  resolvedAt: number;
  resolving: Promise<void> | undefined;
}

/**
 * Resolves `name`'s host again when due (every RESOLVE_EVERY_MS, one lookup at a time) and hands
 * the addresses to `apply`; undefined when not due. A failed lookup is logged and the caller keeps
 * the addresses it had (a DNS hiccup must not move every stream or call elsewhere); with none at
 * all, it tries again in a second rather than ten.
 */
export function refreshName(
  name: ResolvedName,
  options: {
    readonly host: string;
    readonly resolve: ResolveAddresses;
    readonly now: () => number;
    readonly logger: Logger | undefined;
    readonly hasAddresses: () => boolean;
    readonly apply: (addresses: string[]) => void;
  },
): Promise<void> | undefined {
  const { now } = options;
  if (now() - name.resolvedAt < RESOLVE_EVERY_MS) return undefined;
  name.resolving ??= options
    .resolve(options.host)
    .then(
      (addresses) => {
        options.apply(addresses);
        name.resolvedAt = now();
      },
      (error) => {
        options.logger?.warn(
          { url: name.url, err: (error as Error).message },
          "detection name not resolved",
        );
        name.resolvedAt = options.hasAddresses()
          ? now()
          : now() - RESOLVE_EVERY_MS + RETRY_RESOLVE_MS;
      },
    )
    .finally(() => {
      name.resolving = undefined;
    });
  return name.resolving;
}
