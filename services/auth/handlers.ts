import type { ServiceImpl } from "@connectrpc/connect";
import type { AuthService } from "@movement-detection/proto/auth/v1";
import {
  Code,
  errorInfo,
  InternalCallReason,
  serviceError,
} from "@movement-detection/shared/errors";
import { callerOf, peerWorkloadOf } from "@movement-detection/shared/security";
import type { Accounts } from "./operations/accounts.js";
import type { RuntimeTokens } from "./operations/runtime-tokens.js";
import type { SigningKeys } from "./operations/signing-keys.js";
import type { TokenExchange } from "./operations/token-exchange.js";
import { AuthReason } from "./reasons.js";
import type { KeyRing } from "./signing/key-ring.js";
import {
  credentialMessage,
  organizationMessage,
  projectMessage,
  signingKeyMessage,
} from "./to-proto.js";

export interface AuthHandlerDeps {
  readonly exchange: TokenExchange;
  readonly accounts: Accounts;
  readonly runtimeTokens: RuntimeTokens;
  readonly signingKeys: SigningKeys;
  readonly ring: KeyRing;
}

/** gRPC handlers: translate messages, call the domain, translate back. */
export function createAuthHandlers(deps: AuthHandlerDeps): ServiceImpl<typeof AuthService> {
  const { accounts } = deps;
  return {
    async mintAccessToken(request, context) {
      // The failure limit counts per client address, so only the gateway, which saw the client's
      // socket, may say what it is; any other caller is counted under its own workload.
      const peer = peerWorkloadOf(context);
      if (request.clientAddress !== "" && peer !== "gateway") {
        throw serviceError(
          Code.PermissionDenied,
          InternalCallReason.clientAddressNotAllowed,
          "only the gateway may name the client address",
        );
      }
      const clientAddress =
        peer === "gateway" && request.clientAddress !== ""
          ? request.clientAddress
          : `workload:${peer ?? "unknown"}`;
      const issued = await deps.exchange.mint({
        api_key: request.apiKey,
        api_key_id: request.apiKeyId,
        api_key_secret: request.apiKeySecret,
        service_account_id: request.serviceAccountId,
        service_account_secret: request.serviceAccountSecret,
        project_id: request.projectId,
        scopes: request.requestedScopes?.scopes,
        clientAddress,
        ttlSeconds: request.ttlSeconds,
      });
      return {
        accessToken: issued.accessToken,
        tokenType: "Bearer",
        expiresInSeconds: issued.expiresInSeconds,
        organizationId: issued.organizationId,
        projectId: issued.projectId,
        scopes: [...issued.scopes],
        credentialId: issued.credentialId,
      };
    },

    async getJwks() {
      return { jwksJson: await deps.ring.jwksJson() };
    },

    async mintRuntimeToken(request) {
      const signed = await deps.runtimeTokens.mint(request);
      return {
        runtimeToken: signed.token,
        expiresAt: signed.expiresAt.toISOString(),
        projectChecked: true,
      };
    },

    async getProject(request, context) {
      // Only the project of the verified token is visible; any other answers like a missing one.
      const notFound = () =>
        serviceError(Code.NotFound, AuthReason.projectNotFound, "project not found");
      if (callerOf(context).projectId !== request.projectId) throw notFound();
      // A missing project answers as above; any other failure (the database is down) stays
      // what it is: never "not found".
      const found = await accounts.project(request.projectId).catch((error: unknown) => {
        throw errorInfo(error).code === Code.NotFound ? notFound() : error;
      });
      return { project: projectMessage(found) };
    },

    async createOrganization(request) {
      return { organization: organizationMessage(await accounts.createOrganization(request.name)) };
    },
    async listOrganizations() {
      return { organizations: (await accounts.listOrganizations()).map(organizationMessage) };
    },
    async createProject(request) {
      const project = await accounts.createProject({
        organizationId: request.organizationId,
        name: request.name,
        slug: request.slug,
      });
      return { project: projectMessage(project) };
    },
    async listProjects(request) {
      return {
        projects: (await accounts.listProjects(request.organizationId)).map(projectMessage),
      };
    },
    async archiveProject(request) {
      return { project: projectMessage(await accounts.archiveProject(request.projectId)) };
    },
    async createApiKey(request) {
      const { record, secret } = await accounts.createApiKey({
        projectId: request.projectId,
        name: request.name,
        scopes: request.scopes,
      });
      return { apiKey: credentialMessage(record), secret };
    },
    async listApiKeys(request) {
      const records = await accounts.listCredentials(request.projectId, "api_key");
      return { apiKeys: records.map(credentialMessage) };
    },
    async createServiceAccount(request) {
      const { record, secret } = await accounts.createServiceAccount({
        projectId: request.projectId,
        name: request.name,
        scopes: request.scopes,
      });
      return { serviceAccount: credentialMessage(record), secret };
    },
    async listServiceAccounts(request) {
      const records = await accounts.listCredentials(request.projectId, "service_account");
      return { serviceAccounts: records.map(credentialMessage) };
    },
    async revokeCredential(request) {
      return {
        credential: credentialMessage(await accounts.revokeCredential(request.credentialId)),
      };
    },

    async rotateSigningKey(request) {
      const state = await deps.signingKeys.rotate(request.activateAfterSeconds);
      return { signingKey: signingKeyMessage(state, deps.signingKeys.sourceKind) };
    },
    async listSigningKeys() {
      const states = await deps.signingKeys.list();
      return {
        signingKeys: states.map((state) => signingKeyMessage(state, deps.signingKeys.sourceKind)),
      };
    },
  };
}
