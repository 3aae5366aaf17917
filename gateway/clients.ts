import type { DescService } from "@bufbuild/protobuf";
import { type Client, createClient, type Interceptor, type Transport } from "@connectrpc/connect";
import { AuthService } from "@movement-detection/proto/auth/v1";
import { AuthoringService } from "@movement-detection/proto/authoring/v1";
import { CatalogueService } from "@movement-detection/proto/catalogue/v1";
import { DetectionService } from "@movement-detection/proto/detection/v1";
import { Health } from "@movement-detection/proto/grpc/health/v1";
import { currentRequestContext, REQUEST_ID_HEADER } from "@movement-detection/shared/logging";
import type { Workload } from "@movement-detection/shared/security";
import {
  createInternalTransport,
  type InternalIdentity,
} from "@movement-detection/shared/security";
import type { GatewayConfig } from "./config.js";

/** One typed gRPC client per internal service, over HTTP/2 with mutual TLS (the gateway's identity). */
export interface ServiceClients {
  readonly auth: Client<typeof AuthService>;
  readonly catalogue: Client<typeof CatalogueService>;
  readonly authoring: Client<typeof AuthoringService>;
  /** One client per detection replica, in configuration order. */
  readonly detection: readonly Client<typeof DetectionService>[];
  /**
   * A detection client for another URL (an address a configured name resolved to), with the same
   * transport settings; one per URL, reused.
   */
  detectionAt(url: string): Client<typeof DetectionService>;
  /** grpc.health.v1 of every service the gateway needs, over the same connections. */
  readonly health: readonly DependencyClient[];
}

export interface DependencyClient {
  /** auth, catalogue, authoring, or detection (every replica under that one name). */
  readonly name: "auth" | "catalogue" | "authoring" | "detection";
  readonly url: string;
  readonly client: Client<typeof Health>;
}

/** Carries the request id of the HTTP request being served into every internal call. */
const forwardRequestId: Interceptor = (next) => (request) => {
  const context = currentRequestContext();
  if (context) request.header.set(REQUEST_ID_HEADER, context.requestId);
  return next(request);
};

export function grpcTransport(
  identity: InternalIdentity,
  baseUrl: string,
  expected: Workload,
  timeoutMs: number,
  interceptors: readonly Interceptor[] = [],
): Transport {
  return createInternalTransport(identity, {
    baseUrl,
    expected,
    timeoutMs,
    interceptors: [forwardRequestId, ...interceptors],
  });
}

/**
 * `interceptors` run on every call, inside the request-id forwarding: the RPC metrics. One
 * transport (one HTTP/2 connection, mutual TLS as the gateway) per service address, shared by its
 * API and its health.
 */
export function createServiceClients(
  config: GatewayConfig,
  identity: InternalIdentity,
  interceptors: readonly Interceptor[] = [],
): ServiceClients {
  const transports = new Map<string, Transport>();
  const transportOf = (url: string, expected: Workload): Transport => {
    let transport = transports.get(url);
    if (!transport) {
      transport = grpcTransport(identity, url, expected, config.rpcTimeoutMs, interceptors);
      transports.set(url, transport);
    }
    return transport;
  };
  const client = <T extends DescService>(service: T, url: string, expected: Workload): Client<T> =>
    createClient(service, transportOf(url, expected));
  const dependency = (name: DependencyClient["name"], url: string): DependencyClient => ({
    name,
    url,
    client: client(Health, url, name),
  });
  return {
    auth: client(AuthService, config.authServiceUrl, "auth"),
    catalogue: client(CatalogueService, config.catalogueServiceUrl, "catalogue"),
    authoring: client(AuthoringService, config.authoringServiceUrl, "authoring"),
    detection: config.detectionServiceUrls.map((url) => client(DetectionService, url, "detection")),
    detectionAt: (url) => client(DetectionService, url, "detection"),
    health: [
      dependency("auth", config.authServiceUrl),
      dependency("catalogue", config.catalogueServiceUrl),
      dependency("authoring", config.authoringServiceUrl),
      ...config.detectionServiceUrls.map((url) => dependency("detection", url)),
    ],
  };
}
