import type { Logger } from "@movement-detection/shared/logging";
import type { InternalIdentity } from "@movement-detection/shared/security";
import type { TokenVerifier } from "@movement-detection/shared/tokens";
import type { ServiceClients } from "../clients.js";
import type { GatewayConfig } from "../config.js";

/** What every route module is built from. */
export interface RouteDeps {
  readonly config: GatewayConfig;
  readonly clients: ServiceClients;
  readonly logger: Logger;
  /** Verifies access tokens locally against the auth service's public keys. */
  readonly tokenVerifier: TokenVerifier;
  /** The gateway's workload identity (the stream hop to detection uses it too). */
  readonly identity: InternalIdentity;
}
