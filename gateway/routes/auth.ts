import type Router from "@koa/router";
import {
  type AccessTokenJson,
  AccessTokenRequest,
  compileChecker,
} from "@movement-detection/shared/api";
import type { GatewayState } from "../state.js";
import { checkBody } from "./request-checks.js";
import type { RouteDeps } from "./route-deps.js";
import { createRouter } from "./router.js";

const checkTokenRequest = compileChecker(AccessTokenRequest);

/**
 * POST /api/auth/access-tokens: checks the body against its schema here, and leaves credential forms,
 * projects and scopes to the auth service (MintAccessToken). Anonymous: the credential is in the
 * body. Responses are never cached.
 */
export function authRoutes(deps: RouteDeps): Router<GatewayState> {
  const router = createRouter();
  router.post("/api/auth/access-tokens", async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    ctx.set("Pragma", "no-cache");
    const fields = checkBody(ctx, checkTokenRequest);
    const scopes = fields.scopes;
    const minted = await deps.clients.auth.mintAccessToken({
      apiKey: fields.api_key,
      apiKeyId: fields.api_key_id,
      apiKeySecret: fields.api_key_secret,
      serviceAccountId: fields.service_account_id,
      serviceAccountSecret: fields.service_account_secret,
      projectId: fields.project_id,
      requestedScopes: scopes === undefined ? undefined : { scopes },
      clientAddress: ctx.ip,
    });
    ctx.body = {
      access_token: minted.accessToken,
      token_type: "Bearer",
      expires_in_seconds: minted.expiresInSeconds,
      organization_id: minted.organizationId,
      project_id: minted.projectId,
    } satisfies AccessTokenJson;
  });
  return router;
}
