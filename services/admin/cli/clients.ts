import type { DescService } from "@bufbuild/protobuf";
import { type Client, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { AuthService } from "../../../proto/gen/auth/v1/auth_pb.js";
import { AuthoringService } from "../../../proto/gen/authoring/v1/authoring_pb.js";
import { CatalogueService } from "../../../proto/gen/catalogue/v1/catalogue_pb.js";
import type { AdminConfig } from "../config.js";

/**
 * gRPC clients to the internal services, made on first use. A module for another area adds its
 * service here (e.g. `authoring`) with one line.
 */
export interface AdminClients {
  readonly auth: Client<typeof AuthService>;
  readonly authoring: Client<typeof AuthoringService>;
  readonly catalogue: Client<typeof CatalogueService>;
}

export function createAdminClients(config: AdminConfig): AdminClients {
  const cache = new Map<string, unknown>();
  const lazy = <T extends DescService>(service: T, url: string): Client<T> => {
    const key = `${service.typeName}@${url}`;
    if (!cache.has(key)) {
      const transport = createGrpcTransport({
        baseUrl: url,
        defaultTimeoutMs: config.timeoutMs,
        idleConnectionTimeoutMs: 100,
      });
      cache.set(key, createClient(service, transport));
    }
    return cache.get(key) as Client<T>;
  };
  return {
    get auth() {
      return lazy(AuthService, config.authServiceUrl);
    },
    get authoring() {
      return lazy(AuthoringService, config.authoringServiceUrl);
    },
    get catalogue() {
      return lazy(CatalogueService, config.catalogueServiceUrl);
    },
  };
}
