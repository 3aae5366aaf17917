import type { DescService } from "@bufbuild/protobuf";
import { type Client, createClient } from "@connectrpc/connect";
import { AuthService } from "@movement-detection/proto/auth/v1";
import { AuthoringService } from "@movement-detection/proto/authoring/v1";
import { CatalogueService } from "@movement-detection/proto/catalogue/v1";
import type { Workload } from "@movement-detection/shared/security";
import {
  createInternalTransport,
  type InternalIdentity,
  loadInternalIdentity,
} from "@movement-detection/shared/security";
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
  let identity: InternalIdentity | undefined;
  const lazy = <T extends DescService>(service: T, url: string, expected: Workload): Client<T> => {
    const key = `${service.typeName}@${url}`;
    if (!cache.has(key)) {
      // The operator certificate is read on first use: `--help` needs none.
      identity ??= loadInternalIdentity(config.security);
      identity.tls?.close();
      const transport = createInternalTransport(identity, {
        baseUrl: url,
        expected,
        timeoutMs: config.timeoutMs,
        idleConnectionTimeoutMs: 100,
      });
      cache.set(key, createClient(service, transport));
    }
    return cache.get(key) as Client<T>;
  };
  return {
    get auth() {
      return lazy(AuthService, config.authServiceUrl, "auth");
    },
    get authoring() {
      return lazy(AuthoringService, config.authoringServiceUrl, "authoring");
    },
    get catalogue() {
      return lazy(CatalogueService, config.catalogueServiceUrl, "catalogue");
    },
  };
}
