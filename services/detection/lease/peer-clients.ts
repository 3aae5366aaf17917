import { type Client, createClient } from "@connectrpc/connect";
import { DetectionService } from "@movement-detection/proto/detection/v1";
import {
  createInternalTransport,
  type InternalIdentity,
} from "@movement-detection/shared/security";

export type DetectionClient = Client<typeof DetectionService>;

/** gRPC clients of the other detection replicas, by address (one HTTP/2 connection each). */
export interface PeerClients {
  of(url: string): DetectionClient;
}

/** Replicas prove to each other that they are detection (the lease RPCs are replica-only). */
export function createPeerClients(identity: InternalIdentity, timeoutMs: number): PeerClients {
  const clients = new Map<string, DetectionClient>();
  return {
    of(url) {
      let client = clients.get(url);
      if (!client) {
        client = createClient(
          DetectionService,
          createInternalTransport(identity, {
            baseUrl: url,
            expected: "detection",
            timeoutMs,
            idleConnectionTimeoutMs: 10_000,
          }),
        );
        clients.set(url, client);
      }
      return client;
    },
  };
}
