import type { DescService } from "@bufbuild/protobuf";
import { type Client, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { AuthService } from "../../../proto/gen/auth/v1/auth_pb.js";
import type { AdminConfig } from "../config.js";

/**
 * gRPC clients to the internal services, made on first use. A module for another area adds its
 * service here (e.g. `authoring`) with one line.
 */
export interface AdminClients {
  readonly auth: Client<typeof AuthService>;
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
  };
}
