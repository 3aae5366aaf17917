import { Code, serviceError } from "../../shared/errors/service-error.js";
import { isUuid } from "../../shared/ids/uuid-v7.js";
import type { TokenSettings } from "../../shared/tokens/token-config.js";
import { Reason } from "../reasons.js";
import type { TokenSigner } from "../signing/token-signer.js";

export interface RuntimeTokenRequest {
  readonly sessionId: string;
  readonly organizationId: string;
  readonly projectId: string;
  /** 0: the configured default lifetime. */
  readonly ttlSeconds: number;
}

/**
 * `MintRuntimeToken`: the detection service asks for a token that lets one client stream to one
 * session. Ids must be UUIDs and the lifetime at most the configured maximum.
 */
export function createRuntimeTokens(deps: { signer: TokenSigner; settings: TokenSettings }) {
  return {
    async mint(request: RuntimeTokenRequest): Promise<{ token: string; expiresAt: Date }> {
      for (const [field, value] of [
        ["session_id", request.sessionId],
        ["organization_id", request.organizationId],
        ["project_id", request.projectId],
      ] as const) {
        if (!isUuid(value)) {
          throw serviceError(Code.InvalidArgument, Reason.fieldInvalid, `${field} must be a UUID`, {
            field,
          });
        }
      }
      const max = deps.settings.runtimeTokenMaxTtlSeconds;
      if (request.ttlSeconds > max) {
        throw serviceError(
          Code.InvalidArgument,
          Reason.fieldInvalid,
          `ttl_seconds must be at most ${max}`,
          { field: "ttl_seconds", max },
        );
      }
      const signed = await deps.signer.signRuntimeToken({
        sessionId: request.sessionId,
        organizationId: request.organizationId,
        projectId: request.projectId,
        ttlSeconds: request.ttlSeconds || deps.settings.runtimeTokenTtlSeconds,
      });
      return { token: signed.token, expiresAt: new Date(signed.expiresAt * 1000) };
    },
  };
}

export type RuntimeTokens = ReturnType<typeof createRuntimeTokens>;
