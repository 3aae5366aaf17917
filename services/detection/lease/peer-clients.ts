import { type Client, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { DetectionService } from "../../../proto/gen/detection/v1/detection_pb.js";
import { clientTracingInterceptor } from "../../shared/telemetry/rpc-tracing.js";

export type DetectionClient = Client<typeof DetectionService>;

/** gRPC clients of the other detection replicas, by address (one HTTP/2 connection each). */
export interface PeerClients {
  of(url: string): DetectionClient;
}

export function createPeerClients(timeoutMs: number): PeerClients {
  const clients = new Map<string, DetectionClient>();
  return {
    of(url) {
      let client = clients.get(url);
      if (!client) {
        client = createClient(
          DetectionService,
          createGrpcTransport({
            baseUrl: url,
            defaultTimeoutMs: timeoutMs,
            idleConnectionTimeoutMs: 10_000,
            interceptors: [clientTracingInterceptor()],
          }),
        );
        clients.set(url, client);
      }
      return client;
    },
  };
}
