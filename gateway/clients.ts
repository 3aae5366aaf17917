import type { DescService } from "@bufbuild/protobuf";
import { type Client, createClient, type Interceptor, type Transport } from "@connectrpc/connect";
import { AuthService } from "../proto/gen/auth/v1/auth_pb.js";
import { AuthoringService } from "../proto/gen/authoring/v1/authoring_pb.js";
import { CatalogueService } from "../proto/gen/catalogue/v1/catalogue_pb.js";
import { DetectionService } from "../proto/gen/detection/v1/detection_pb.js";
import {
  currentRequestContext,
  REQUEST_ID_HEADER,
} from "../services/shared/logging/request-context.js";
import {
  createInternalTransport,
  type InternalIdentity,
} from "../services/shared/security/internal-transport.js";
import type { Workload } from "../services/shared/security/workloads.js";
import type { GatewayConfig } from "./config.js";

/** One typed gRPC client per internal service, over HTTP/2 with mutual TLS (the gateway's identity). */
export interface ServiceClients {
  readonly auth: Client<typeof AuthService>;
  readonly catalogue: Client<typeof CatalogueService>;
  readonly authoring: Client<typeof AuthoringService>;
  /** One client per detection replica, in configuration order. */
  readonly detection: readonly Client<typeof DetectionService>[];
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
): Transport {
  return createInternalTransport(identity, {
    baseUrl,
    expected,
    timeoutMs,
    interceptors: [forwardRequestId],
  });
}

export function createServiceClients(
  config: GatewayConfig,
  identity: InternalIdentity,
): ServiceClients {
  const timeout = config.rpcTimeoutMs;
  const client = <T extends DescService>(service: T, url: string, expected: Workload) =>
    createClient(service, grpcTransport(identity, url, expected, timeout));
  return {
    auth: client(AuthService, config.authServiceUrl, "auth"),
    catalogue: client(CatalogueService, config.catalogueServiceUrl, "catalogue"),
    authoring: client(AuthoringService, config.authoringServiceUrl, "authoring"),
    detection: config.detectionServiceUrls.map((url) => client(DetectionService, url, "detection")),
  };
}
