import { timingSafeEqual } from "node:crypto";
import { Code, Reason, serviceError } from "@movement-detection/shared/errors";
import { isUuid } from "@movement-detection/shared/ids";
import type { CredentialKind, TokenSettings } from "@movement-detection/shared/tokens";
import {
  type CredentialFields,
  isFormProblem,
  presentedCredential,
} from "../domain/credential-form.js";
import { grantScopes } from "../domain/scope-grant.js";
import { hashSecret } from "../domain/secrets.js";
import { AuthReason } from "../reasons.js";
import type { TokenSigner } from "../signing/token-signer.js";
import type { CredentialRecord, CredentialsStore } from "../store/credentials-store.js";
import type { ProjectsStore } from "../store/projects-store.js";
import type { FailureLimiter } from "./failure-limiter.js";

export interface TokenRequest extends CredentialFields {
  readonly project_id?: string;
  /** Undefined: the credential's full scope. */
  readonly scopes?: readonly string[];
  readonly clientAddress: string;
  /** Internal callers may ask for a shorter lifetime; 0 or undefined: the configured one. */
  readonly ttlSeconds?: number;
}

export interface IssuedAccessToken {
  readonly accessToken: string;
  readonly expiresInSeconds: number;
  readonly organizationId: string;
  readonly projectId: string;
  readonly scopes: readonly string[];
  readonly credentialId: string;
}

/**
 * POST /api/auth/access-tokens, behind the gateway: checks the request's shape, then the
 * credential (in the same time whether the key is unknown or the secret wrong), then the project
 * and the scopes, and signs. Failed credential checks are counted per client address.
 */
export function createTokenExchange(deps: {
  /** Found by the hash of the presented secret (recent-credentials.ts may answer). */
  credentials: Pick<CredentialsStore, "findByHash">;
  /** Only asked whether the project exists and is archived (recent-projects.ts may answer). */
  projects: Pick<ProjectsStore, "find">;
  pepper: string;
  signer: TokenSigner;
  limiter: FailureLimiter;
  settings: TokenSettings;
}) {
  const invalidCredential = () =>
    serviceError(Code.Unauthenticated, AuthReason.credentialInvalid, "the credential is not valid");

  /**
   * Every form is found by the hash of its secret (one unique-index lookup), never by its id: a
   * wrong secret misses the same way whether the id exists or not, so no timing tells ids apart.
   * The pair forms then compare the presented id with the found record's, in constant time.
   */
  const findCredential = async (
    presented: Exclude<ReturnType<typeof presentedCredential>, { problem: unknown }>,
  ): Promise<CredentialRecord | undefined> => {
    const hash = hashSecret(deps.pepper, presented.secret);
    const type = presented.form === "api_key" ? "api_key" : presented.kind;
    const record = await deps.credentials.findByHash(hash, type);
    if (presented.form === "api_key") return record ?? undefined;
    const matches = idsEqual(record?._id ?? DUMMY_ID, presented.id);
    return record && matches ? record : undefined;
  };

  return {
    async mint(request: TokenRequest): Promise<IssuedAccessToken> {
      const presented = presentedCredential(request);
      if (isFormProblem(presented)) throw formError(presented);
      if (request.project_id !== undefined && !isUuid(request.project_id)) {
        throw fieldInvalid("project_id", "project_id must be a project id (a UUID)");
      }
      const requested = grantScopes([], request.scopes);
      if (!requested.ok && requested.problem === "unknown") {
        throw serviceError(Code.InvalidArgument, Reason.fieldInvalid, "unknown scope names", {
          field: "scopes",
          unknown_scopes: requested.scopes,
        });
      }
      if (!requested.ok && requested.problem === "empty") {
        throw fieldInvalid("scopes", "scopes must name at least one scope (omit it for all)");
      }

      const admission = await deps.limiter.admit(request.clientAddress);
      if (admission.blockedFor > 0) {
        throw serviceError(
          Code.ResourceExhausted,
          AuthReason.rateLimited,
          "too many failed credential checks; retry later",
          { retry_after_seconds: admission.blockedFor },
        );
      }
      let credential: CredentialRecord | undefined;
      try {
        credential = await findCredential(presented);
        if (!credential || credential.revoked_at) {
          await deps.limiter.recordFailure(request.clientAddress);
          throw invalidCredential();
        }
      } finally {
        admission.release();
      }
      if (request.project_id !== undefined && request.project_id !== credential.project_id) {
        throw serviceError(
          Code.PermissionDenied,
          AuthReason.projectMismatch,
          "the credential is not bound to this project",
          { field: "project_id" },
        );
      }
      const project = await deps.projects.find(credential.project_id);
      if (!project) throw invalidCredential();
      if (project.archived_at) {
        throw serviceError(
          Code.FailedPrecondition,
          AuthReason.projectArchived,
          "the credential's project is archived",
          { project_id: project._id },
        );
      }
      const granted = grantScopes(credential.scopes, request.scopes);
      if (!granted.ok) {
        throw serviceError(
          Code.PermissionDenied,
          AuthReason.scopeNotGranted,
          "the credential does not grant every requested scope",
          { field: "scopes", not_granted: granted.problem === "not_granted" ? granted.scopes : [] },
        );
      }
      const ttl = lifetime(request.ttlSeconds, deps.settings.accessTokenTtlSeconds);
      const signed = await deps.signer.signAccessToken({
        credentialId: credential._id,
        credentialType: credential.type as CredentialKind,
        organizationId: credential.organization_id,
        projectId: credential.project_id,
        scopes: granted.scopes,
        ttlSeconds: ttl,
      });
      return {
        accessToken: signed.token,
        expiresInSeconds: ttl,
        organizationId: credential.organization_id,
        projectId: credential.project_id,
        scopes: granted.scopes,
        credentialId: credential._id,
      };
    },
  };
}

export type TokenExchange = ReturnType<typeof createTokenExchange>;

function lifetime(requested: number | undefined, configured: number): number {
  return requested && requested > 0 ? Math.min(requested, configured) : configured;
}

function fieldInvalid(field: string, message: string) {
  return serviceError(Code.InvalidArgument, Reason.fieldInvalid, message, { field });
}

function formError(problem: Exclude<ReturnType<typeof presentedCredential>, { form: unknown }>) {
  switch (problem.problem) {
    case "missing":
      return serviceError(
        Code.InvalidArgument,
        Reason.fieldRequired,
        "a credential is required: api_key, api_key_id + api_key_secret, or service_account_id + service_account_secret",
        { field: "api_key" },
      );
    case "conflict":
      return serviceError(
        Code.InvalidArgument,
        Reason.fieldInvalid,
        "the body names more than one credential form; send exactly one",
        { field: "api_key", forms: [...problem.forms] },
      );
    case "incomplete":
      return serviceError(
        Code.InvalidArgument,
        Reason.fieldRequired,
        `${problem.missing} is required with this credential form`,
        { field: problem.missing },
      );
  }
}

const DUMMY_ID = "00000000-0000-0000-0000-000000000000";

/** Constant time for ids of the same length (every UUID); a different length is simply unequal. */
function idsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}
