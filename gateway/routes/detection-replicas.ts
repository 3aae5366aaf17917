import type { Client } from "@connectrpc/connect";
import { Code } from "@connectrpc/connect";
import type { DetectionService } from "@movement-detection/proto/detection/v1";
import { errorInfo } from "@movement-detection/shared/errors";
import type { Logger } from "@movement-detection/shared/logging";
import {
  hostOf,
  isName,
  type ResolveAddresses,
  refreshName,
  resolveWithDns,
  urlAt,
} from "../realtime/name-resolution.js";

type DetectionClient = Client<typeof DetectionService>;

/**
 * Any detection replica answers the session RPCs (their state is in MongoDB): calls go round
 * robin, and move on to the next replica when one cannot be reached at all (connection refused:
 * nothing was done there). Errors a replica returned are the caller's.
 *
 * A configured URL whose host is a name (a Kubernetes headless Service) is resolved, every 10 s
 * and after an unreachable replica, and each address is a replica of its own, with its own
 * client and connection: one connection to the name would carry every call to the one pod it
 * reached (HTTP/2 multiplexes calls over it; kube-proxy balances connections, not calls).
 */
export interface DetectionReplicas {
  call<T>(rpc: (client: DetectionClient) => Promise<T>): Promise<T>;
}

export interface DetectionReplicasOptions {
  /** A client for a URL the configuration does not name (an address of a resolved name). */
  readonly clientAt?: (url: string) => DetectionClient;
  readonly resolve?: ResolveAddresses;
  readonly now?: () => number;
  readonly logger?: Logger;
}

interface Configured {
  readonly url: string;
  readonly client: DetectionClient;
  readonly name: boolean;
  /** The name's addresses' clients, as resolved last (empty: use `client`, the name itself). */
  members: DetectionClient[];
  resolvedAt: number;
  resolving: Promise<void> | undefined;
}

export function createDetectionReplicas(
  clients: readonly DetectionClient[],
  urls: readonly string[] = [],
  options: DetectionReplicasOptions = {},
): DetectionReplicas {
  const resolve = options.resolve ?? resolveWithDns;
  const now = options.now ?? (() => performance.now());
  const byAddress = new Map<string, DetectionClient>();
  // Built at the first call: building the routes touches no client.
  let built: Configured[] | undefined;
  const entries = (): Configured[] => {
    built ??= clients.map((client, index) => ({
      url: urls[index] ?? "",
      client,
      name: options.clientAt !== undefined && isName(hostOf(urls[index] ?? "")),
      members: [],
      resolvedAt: Number.NEGATIVE_INFINITY,
      resolving: undefined,
    }));
    return built;
  };
  let next = 0;

  const refresh = (entry: Configured): Promise<void> | undefined =>
    entry.name
      ? refreshName(entry, {
          host: hostOf(entry.url),
          resolve,
          now,
          logger: options.logger,
          hasAddresses: () => entry.members.length > 0,
          apply: (addresses) => {
            entry.members = addresses.map((address) => {
              const url = urlAt(entry.url, address);
              let client = byAddress.get(url);
              if (!client) {
                client = (options.clientAt as (url: string) => DetectionClient)(url);
                byAddress.set(url, client);
              }
              return client;
            });
          },
        })
      : undefined;

  /** Every replica to call, each configured URL's addresses (or the URL itself) in turn. */
  const replicas = async (): Promise<{ client: DetectionClient; from: Configured }[]> => {
    const configured = entries();
    const due = configured.map(refresh).filter((pending) => pending !== undefined);
    if (due.length > 0) await Promise.all(due);
    return configured.flatMap((entry) =>
      (entry.members.length > 0 ? entry.members : [entry.client]).map((client) => ({
        client,
        from: entry,
      })),
    );
  };

  return {
    async call(rpc) {
      const all = await replicas();
      if (all.length === 0) throw new Error("no detection replica configured");
      const first = next % all.length;
      next = (first + 1) % all.length;
      let lastError: unknown;
      for (let offset = 0; offset < all.length; offset += 1) {
        const { client, from } = all[(first + offset) % all.length];
        try {
          return await rpc(client);
        } catch (error) {
          if (!unreachable(error)) throw error;
          lastError = error;
          // A pod may be gone: resolve the name again before the next call.
          from.resolvedAt = Number.NEGATIVE_INFINITY;
        }
      }
      throw lastError;
    },
  };
}

/** UNAVAILABLE without a service's reason: the replica was not reached (down, restarting). */
function unreachable(error: unknown): boolean {
  const info = errorInfo(error);
  return info.code === Code.Unavailable && info.reason === undefined;
}
