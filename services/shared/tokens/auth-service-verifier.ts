import type { Client } from "@connectrpc/connect";
import type { AuthService } from "@movement-detection/proto/auth/v1";
import type { JSONWebKeySet } from "jose";
import { maxTokenLifetimeSeconds, type TokenSettings } from "./token-config.js";
import { createTokenVerifier, type TokenVerifier } from "./token-verifier.js";

/**
 * A verifier configured from the shared token settings (issuer, clock tolerance, the longest
 * token lifetime, how often an unknown key may trigger a refetch), reading the signer's public
 * keys from `fetchJwks`: every process verifies with the same settings, so a new one cannot be
 * forgotten in one of them.
 */
export function createSettingsVerifier(
  settings: TokenSettings,
  fetchJwks: () => Promise<JSONWebKeySet>,
): TokenVerifier {
  return createTokenVerifier({
    issuer: settings.issuer,
    clockToleranceSeconds: settings.clockToleranceSeconds,
    maxLifetimeSeconds: maxTokenLifetimeSeconds(settings),
    jwksMinRefreshIntervalMs: settings.keysRefetchIntervalMs,
    fetchJwks,
  });
}

/** The same, with the keys from the auth service's GetJwks (the gateway, authoring, detection). */
export function createAuthServiceVerifier(
  auth: Client<typeof AuthService>,
  settings: TokenSettings,
): TokenVerifier {
  return createSettingsVerifier(settings, async () => {
    const { jwksJson } = await auth.getJwks({}, { timeoutMs: 3000 });
    return JSON.parse(jwksJson) as JSONWebKeySet;
  });
}
