import type { Client } from "@connectrpc/connect";
import type { JSONWebKeySet } from "jose";
import type { AuthService } from "../../proto/gen/auth/v1/auth_pb.js";
import {
  createTokenVerifier,
  DEFAULT_TOKEN_SETTINGS,
  type TokenSettings,
  type TokenVerifier,
} from "../../services/shared/tokens/index.js";

/**
 * The gateway's access-token verifier: public keys from the auth service's GetJwks, cached and
 * refetched on an unknown `kid`. The issuer and clock tolerance come from the gateway's config
 * (TOKEN_ISSUER, TOKEN_CLOCK_TOLERANCE_SECONDS, TOKEN_KEYS_REFETCH_INTERVAL_MS), read the same way as the
 * auth service reads them.
 */
export function createGatewayTokenVerifier(
  auth: Client<typeof AuthService>,
  settings: TokenSettings = DEFAULT_TOKEN_SETTINGS,
): TokenVerifier {
  return createTokenVerifier({
    issuer: settings.issuer,
    clockToleranceSeconds: settings.clockToleranceSeconds,
    jwksMinRefreshIntervalMs: settings.keysRefetchIntervalMs,
    fetchJwks: async () => {
      const { jwksJson } = await auth.getJwks({}, { timeoutMs: 3000 });
      return JSON.parse(jwksJson) as JSONWebKeySet;
    },
  });
}
