import { newId } from "../../shared/ids/uuid-v7.js";
import { CLAIM, type CredentialKind } from "../../shared/tokens/claims.js";
import {
  ACCESS_TOKEN_AUDIENCE,
  ACCESS_TOKEN_TYPE,
  RUNTIME_TOKEN_AUDIENCE,
  RUNTIME_TOKEN_TYPE,
} from "../../shared/tokens/token-config.js";
import { signCompactJws } from "./compact-jws.js";
import type { KeyRing } from "./key-ring.js";

export interface AccessTokenGrant {
  readonly credentialId: string;
  readonly credentialType: CredentialKind;
  readonly organizationId: string;
  readonly projectId: string;
  readonly scopes: readonly string[];
  readonly ttlSeconds: number;
}

export interface RuntimeTokenGrant {
  readonly sessionId: string;
  readonly organizationId: string;
  readonly projectId: string;
  readonly ttlSeconds: number;
}

/** Signs access and runtime tokens with the key ring's current key (every claim RFC 8725 asks). */
export function createTokenSigner(options: { ring: KeyRing; issuer: string; now?: () => number }) {
  const now = options.now ?? Date.now;

  const sign = async (
    claims: Record<string, unknown>,
    typ: string,
    audience: string,
    subject: string,
    ttlSeconds: number,
  ): Promise<{ token: string; expiresAt: number }> => {
    const signer = await options.ring.signer();
    const issuedAt = Math.floor(now() / 1000);
    const expiresAt = issuedAt + ttlSeconds;
    const token = signCompactJws(
      { kid: signer.kid, typ },
      {
        ...claims,
        iss: options.issuer,
        aud: audience,
        sub: subject,
        iat: issuedAt,
        exp: expiresAt,
        jti: newId(),
      },
      signer,
    );
    return { token, expiresAt };
  };

  return {
    signAccessToken(grant: AccessTokenGrant) {
      return sign(
        {
          [CLAIM.scope]: grant.scopes.join(" "),
          [CLAIM.clientId]: grant.credentialId,
          [CLAIM.credentialType]: grant.credentialType,
          [CLAIM.organizationId]: grant.organizationId,
          [CLAIM.projectId]: grant.projectId,
        },
        ACCESS_TOKEN_TYPE,
        ACCESS_TOKEN_AUDIENCE,
        grant.credentialId,
        grant.ttlSeconds,
      );
    },
    signRuntimeToken(grant: RuntimeTokenGrant) {
      return sign(
        {
          [CLAIM.organizationId]: grant.organizationId,
          [CLAIM.projectId]: grant.projectId,
        },
        RUNTIME_TOKEN_TYPE,
        RUNTIME_TOKEN_AUDIENCE,
        grant.sessionId,
        grant.ttlSeconds,
      );
    },
  };
}

export type TokenSigner = ReturnType<typeof createTokenSigner>;
