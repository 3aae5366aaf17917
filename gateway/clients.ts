import type { DescService } from "@bufbuild/protobuf";
import { type Client, createClient, type Interceptor, type Transport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { AuthService } from "../proto/gen/auth/v1/auth_pb.js";
import { AuthoringService } from "../proto/gen/authoring/v1/authoring_pb.js";
import { CatalogueService } from "../proto/gen/catalogue/v1/catalogue_pb.js";
import { DetectionService } from "../proto/gen/detection/v1/detection_pb.js";
import {
  currentRequestContext,
  REQUEST_ID_HEADER,
} from "../services/shared/logging/request-context.js";
import type { GatewayConfig } from "./config.js";

/** One typed gRPC client per internal service, over HTTP/2. */
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

export function grpcTransport(baseUrl: string, timeoutMs: number): Transport {
  return createGrpcTransport({
    baseUrl,
    interceptors: [forwardRequestId],
    defaultTimeoutMs: timeoutMs,
    idleConnectionTimeoutMs: 30_000,
  });
}

function client<T extends DescService>(service: T, url: string, timeoutMs: number): Client<T> {
  return createClient(service, grpcTransport(url, timeoutMs));
}

export function createServiceClients(config: GatewayConfig): ServiceClients {
  const timeout = config.rpcTimeoutMs;
  return {
    auth: client(AuthService, config.authServiceUrl, timeout),
    catalogue: client(CatalogueService, config.catalogueServiceUrl, timeout),
    authoring: client(AuthoringService, config.authoringServiceUrl, timeout),
    detection: config.detectionServiceUrls.map((url) => client(DetectionService, url, timeout)),
  };
}
