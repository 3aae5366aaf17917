import Router from "@koa/router";
import { Reason } from "../../services/shared/errors/reasons.js";
import { isUuid } from "../../services/shared/ids/uuid-v7.js";
import { ApiError } from "../errors/api-error.js";
import type { GatewayState } from "../state.js";
import type { RouteDeps } from "./route-deps.js";

const STRING_FIELDS = [
  "api_key",
  "api_key_id",
  "api_key_secret",
  "service_account_id",
  "service_account_secret",
  "project_id",
] as const;
const ID_FIELDS = new Set(["api_key_id", "service_account_id", "project_id"]);
const MAX_FIELD_LENGTH = 1024;

/**
 * POST /api/auth/access-tokens: checks the body's types here, and leaves credential forms,
 * projects and scopes to the auth service (MintAccessToken). Anonymous: the credential is in the
 * body. Responses are never cached.
 */
export function authRoutes(deps: RouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.post("/api/auth/access-tokens", async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    ctx.set("Pragma", "no-cache");
    const body = ctx.state.body ?? {};
    const fields: Partial<Record<(typeof STRING_FIELDS)[number], string>> = {};
    for (const name of STRING_FIELDS) {
      const value = body[name];
      if (value === undefined) continue;
      if (typeof value !== "string" || value === "" || value.length > MAX_FIELD_LENGTH) {
        throw fieldInvalid(name, `${name} must be a non-empty string`);
      }
      if (ID_FIELDS.has(name) && !isUuid(value)) {
        throw fieldInvalid(name, `${name} must be an id (a lowercase UUID)`);
      }
      fields[name] = value;
    }
    const scopes = body.scopes;
    if (
      scopes !== undefined &&
      (!Array.isArray(scopes) || scopes.length > 50 || !scopes.every((s) => typeof s === "string"))
    ) {
      throw fieldInvalid("scopes", "scopes must be an array of scope names");
    }
    const minted = await deps.clients.auth.mintAccessToken({
      apiKey: fields.api_key,
      apiKeyId: fields.api_key_id,
      apiKeySecret: fields.api_key_secret,
      serviceAccountId: fields.service_account_id,
      serviceAccountSecret: fields.service_account_secret,
      projectId: fields.project_id,
      requestedScopes: scopes === undefined ? undefined : { scopes: scopes as string[] },
      clientAddress: ctx.ip,
    });
    ctx.body = {
      access_token: minted.accessToken,
      token_type: minted.tokenType,
      expires_in_seconds: minted.expiresInSeconds,
      organization_id: minted.organizationId,
      project_id: minted.projectId,
    };
  });
  return router;
}

function fieldInvalid(field: string, message: string): ApiError {
  return new ApiError("invalid_argument", Reason.fieldInvalid, message, { field });
}
