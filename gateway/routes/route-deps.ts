import type { Logger } from "../../services/shared/logging/logger.js";
import type { InternalIdentity } from "../../services/shared/security/internal-transport.js";
import type { TokenVerifier } from "../../services/shared/tokens/index.js";
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
